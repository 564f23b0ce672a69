#include "spin_kernel.hpp"

#include <cstdint>

#include "cuda_check.hpp"

namespace kerntime::gpu_workloads {
namespace {

__device__ std::uint64_t global_timer_ns() {
  std::uint64_t now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

__global__ void spin_kernel(std::uint64_t duration_ns) {
  const std::uint64_t start = global_timer_ns();
  while (global_timer_ns() - start < duration_ns) {
  }
}

__global__ void empty_kernel() {}

} // namespace

void launch_spin(cudaStream_t stream, std::chrono::nanoseconds duration) {
  spin_kernel<<<1, 1, 0, stream>>>(static_cast<std::uint64_t>(duration.count()));
  KT_CUDA_CHECK(cudaGetLastError());
}

void launch_empty(cudaStream_t stream) {
  empty_kernel<<<1, 1, 0, stream>>>();
  KT_CUDA_CHECK(cudaGetLastError());
}

} // namespace kerntime::gpu_workloads
