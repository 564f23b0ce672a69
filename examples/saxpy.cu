// A user benchmark: link kerntime::kerntime_main and get the whole kerntime command line.
//   ./kerntime_example_saxpy run -a N[pow2]=[20:28:4] --json saxpy.json
#include <kerntime/benchmark.hpp>
#include <kerntime/cuda.hpp>

#include <cstddef>

__global__ void saxpy(int n, float a, const float* x, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

void saxpy_benchmark(kerntime::state& s) {
  const int n = static_cast<int>(s.get_int("N"));
  // One copy per input set, prepared before timing; a failed allocation fails this state only.
  auto x = kerntime::make_input_sets<float>(s.input_sets(), static_cast<std::size_t>(n));
  auto y = kerntime::make_input_sets<float>(s.input_sets(), static_cast<std::size_t>(n));
  s.add_flops(2.0 * n);
  s.add_bytes(3.0 * n * sizeof(float)); // read x and y, write y
  s.exec([&](cudaStream_t stream, int set) {
    saxpy<<<(n + 255) / 256, 256, 0, stream>>>(n, 2.0f, x[set].data(), y[set].data());
    kerntime::check_launch("saxpy");
  });
}
KERNTIME_BENCHMARK(saxpy_benchmark).add_int_power_of_two_axis("N", 20, 24, 4);
