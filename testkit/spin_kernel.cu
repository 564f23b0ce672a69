#include "spin_kernel.hpp"

#include <cstdint>

#include "cuda_check.hpp"

namespace kerntime::testkit {
namespace {

__global__ void spin_kernel(std::uint64_t duration_ns) {
  spin_for_ns(duration_ns);
}

__global__ void empty_kernel() {}

} // namespace

void launch_spin(cudaStream_t stream, std::chrono::nanoseconds duration) {
  spin_kernel<<<1, 1, 0, stream>>>(static_cast<std::uint64_t>(duration.count()));
  check_launch("spin_kernel");
}

void launch_empty(cudaStream_t stream) {
  empty_kernel<<<1, 1, 0, stream>>>();
  check_launch("empty_kernel");
}

} // namespace kerntime::testkit
