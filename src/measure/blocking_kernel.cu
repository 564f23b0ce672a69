#include "measure/blocking_kernel.hpp"

#include <cstdint>

#include "kerntime/cuda.hpp"

namespace kerntime::detail {
namespace {

__global__ void wait_for_release(volatile unsigned* flags, unsigned generation,
                                 std::uint64_t timeout_ns) {
  const std::uint64_t start = global_timer_ns();
  // Generations only grow: a release of this block or of a later one lets it go.
  while (static_cast<int>(flags[0] - generation) < 0) {
    if (global_timer_ns() - start > timeout_ns) {
      flags[1] = 1;
      break;
    }
    __nanosleep(1000);
  }
}

__global__ void empty_kernel() {}

} // namespace

blocking_kernel::blocking_kernel() {
  void* host = nullptr;
  check_cuda(cudaHostAlloc(&host, 2 * sizeof(unsigned), cudaHostAllocMapped),
             "allocating the blocking kernel's flags");
  flags_ = static_cast<volatile unsigned*>(host);
  flags_[0] = 0;
  flags_[1] = 0;
  void* device = nullptr;
  check_cuda(cudaHostGetDevicePointer(&device, host, 0), "mapping the blocking kernel's flags");
  device_flags_ = static_cast<unsigned*>(device);
}

blocking_kernel::~blocking_kernel() {
  release();
  // The stream's owner synchronises; the flags must outlive a still-spinning kernel.
  cudaDeviceSynchronize();
  cudaFreeHost(const_cast<unsigned*>(flags_));
}

void blocking_kernel::block(cudaStream_t stream, std::chrono::nanoseconds timeout) {
  const unsigned generation = generation_.fetch_add(1) + 1;
  __sync_synchronize();
  wait_for_release<<<1, 1, 0, stream>>>(device_flags_, generation,
                                        static_cast<std::uint64_t>(timeout.count()));
  check_launch("the blocking kernel");
}

void blocking_kernel::release() noexcept {
  __sync_synchronize();
  flags_[0] = generation_.load();
  __sync_synchronize();
}

bool blocking_kernel::take_timed_out() noexcept {
  const bool timed_out = flags_[1] != 0;
  flags_[1] = 0;
  return timed_out;
}

void launch_empty_kernels(cudaStream_t stream, int count) {
  for (int i = 0; i < count; ++i) {
    empty_kernel<<<1, 1, 0, stream>>>();
  }
  check_launch("the launch queue probe");
}

} // namespace kerntime::detail
