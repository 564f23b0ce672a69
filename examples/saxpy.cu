// A user benchmark: link kerntime::kerntime_main and get the whole kerntime command line.
//   ./kerntime_example_saxpy run -a N[pow2]=[20:28:4] --json saxpy.json
#include <kerntime/benchmark.hpp>

#include <memory>
#include <stdexcept>
#include <vector>

__global__ void saxpy(int n, float a, const float* x, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

using device_floats = std::unique_ptr<float, decltype(&cudaFree)>;
device_floats allocate(int n) {
  float* p = nullptr;
  if (cudaMalloc(&p, n * sizeof(float)) != cudaSuccess)
    throw std::runtime_error("cudaMalloc");
  return {p, &cudaFree};
}

void saxpy_benchmark(kerntime::state& s) {
  const int n = static_cast<int>(s.get_int("N"));
  std::vector<device_floats> x, y; // one copy per input set, prepared before timing
  for (int i = 0; i < s.input_sets(); ++i) {
    x.push_back(allocate(n));
    y.push_back(allocate(n));
  }
  s.add_flops(2.0 * n);
  s.add_bytes(3.0 * n * sizeof(float)); // read x and y, write y
  s.exec([&](cudaStream_t stream, int set) {
    saxpy<<<(n + 255) / 256, 256, 0, stream>>>(n, 2.0f, x[set].get(), y[set].get());
  });
}
KERNTIME_BENCHMARK(saxpy_benchmark).add_int_power_of_two_axis("N", 20, 24, 4);
