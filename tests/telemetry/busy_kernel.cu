#include "busy_kernel.hpp"

#include "kerntime/cuda.hpp"

namespace kerntime::testing {
namespace {

__device__ unsigned busy_sink;

// Integer work between polls keeps the SM's pipelines (and so its power draw) busy.
__global__ void busy(std::uint64_t nanoseconds) {
  const std::uint64_t start = global_timer_ns();
  unsigned x = threadIdx.x;
  while (global_timer_ns() - start < nanoseconds) {
    for (int i = 0; i < 64; ++i) {
      x = x * 1664525U + 1013904223U;
    }
  }
  if (x == 0xFFFFFFFFU) {
    busy_sink = x; // keeps the loop from being optimised away
  }
}

} // namespace

void launch_busy_kernel(cudaStream_t stream, int blocks, std::uint64_t nanoseconds) {
  busy<<<blocks, 128, 0, stream>>>(nanoseconds);
}

} // namespace kerntime::testing
