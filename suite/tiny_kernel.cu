// A launch-bound kernel: one warp bumping a counter. Its GPU time is well under a microsecond, so
// it shows what the timer itself adds (CUDA events read launch overhead, CUPTI does not) and, with
// kernels=16, the launch gaps between back-to-back kernels (span above busy).

#include "cuda_check.hpp"
#include "kerntime/benchmark.hpp"

namespace kerntime::suite {
namespace {

__global__ void increment_kernel(int* counter) {
  if (threadIdx.x == 0) {
    *counter += 1;
  }
}

void tiny_kernel(state& s) {
  const auto kernels = s.get_int("kernels");
  if (kernels < 1) {
    throw invalid_argument("tiny_kernel: axis kernels must be at least 1");
  }
  auto counters = make_input_sets<int>(s.input_sets(), 1);
  for (auto& c : counters) {
    check_cuda(cudaMemset(c.data(), 0, sizeof(int)), "cudaMemset (input setup)");
  }
  check_cuda(cudaDeviceSynchronize(), "input setup");

  s.add_bytes(2.0 * sizeof(int) * static_cast<double>(kernels));
  s.exec([&](cudaStream_t stream, int input_set) {
    for (std::int64_t k = 0; k < kernels; ++k) {
      increment_kernel<<<1, 32, 0, stream>>>(counters[input_set].data());
      check_launch("increment_kernel");
    }
  });
}

} // namespace

KERNTIME_BENCHMARK(tiny_kernel).add_int_axis("kernels", {1, 16});

} // namespace kerntime::suite
