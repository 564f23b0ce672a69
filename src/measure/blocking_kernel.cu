#include "measure/blocking_kernel.hpp"

#include <cstdint>

#include "kerntime/cuda.hpp"

namespace kerntime::detail {
namespace {

__global__ void wait_for_release(volatile int* flags, std::uint64_t timeout_ns) {
  const std::uint64_t start = global_timer_ns();
  while (flags[0] == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      flags[1] = 1;
      break;
    }
    __nanosleep(1000);
  }
}

} // namespace

blocking_kernel::blocking_kernel() {
  void* host = nullptr;
  check_cuda(cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped),
             "allocating the blocking kernel's flags");
  flags_ = static_cast<volatile int*>(host);
  flags_[0] = 0;
  flags_[1] = 0;
  void* device = nullptr;
  check_cuda(cudaHostGetDevicePointer(&device, host, 0), "mapping the blocking kernel's flags");
  device_flags_ = static_cast<int*>(device);
}

blocking_kernel::~blocking_kernel() {
  release();
  // The stream's owner synchronises; the flags must outlive a still-spinning kernel.
  cudaDeviceSynchronize();
  cudaFreeHost(const_cast<int*>(flags_));
}

void blocking_kernel::block(cudaStream_t stream, std::chrono::nanoseconds timeout) {
  flags_[0] = 0;
  flags_[1] = 0;
  __sync_synchronize();
  wait_for_release<<<1, 1, 0, stream>>>(device_flags_, static_cast<std::uint64_t>(timeout.count()));
  check_launch("the blocking kernel");
  blocked_ = true;
}

void blocking_kernel::release() noexcept {
  if (blocked_) {
    __sync_synchronize();
    flags_[0] = 1;
    __sync_synchronize();
    blocked_ = false;
  }
}

bool blocking_kernel::timed_out() const noexcept {
  return flags_[1] != 0;
}

} // namespace kerntime::detail
