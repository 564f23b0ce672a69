#pragma once
// Holds a stream until the host releases it, so the work queued behind it runs back to back on
// the GPU without host launch gaps. It releases itself after a timeout (trial_loop.hpp says how
// long and why), so it can never hang the GPU.

#include <cuda_runtime_api.h>

#include <chrono>

namespace kerntime::detail {

class blocking_kernel {
public:
  blocking_kernel();
  ~blocking_kernel();
  blocking_kernel(const blocking_kernel&) = delete;
  blocking_kernel& operator=(const blocking_kernel&) = delete;

  // Enqueues the kernel; it spins until release() or `timeout` of GPU time.
  void block(cudaStream_t stream, std::chrono::nanoseconds timeout);
  void release() noexcept;
  // After the stream synchronised: whether the last block ended by timeout.
  [[nodiscard]] bool timed_out() const noexcept;

private:
  volatile int* flags_ = nullptr; // [0] release, [1] timed out; host-mapped
  int* device_flags_ = nullptr;
  bool blocked_ = false;
};

// Releases a blocking kernel when the scope ends, also when the queued work throws: otherwise the
// stream would wait for the timeout.
class release_at_scope_end {
public:
  explicit release_at_scope_end(blocking_kernel& blocker) : blocker_(blocker) {}
  ~release_at_scope_end() { blocker_.release(); }
  release_at_scope_end(const release_at_scope_end&) = delete;
  release_at_scope_end& operator=(const release_at_scope_end&) = delete;

private:
  blocking_kernel& blocker_;
};

} // namespace kerntime::detail
