#pragma once
// Holds a stream until the host releases it, so the work queued behind it runs back to back on
// the GPU without host launch gaps. It releases itself after a timeout (trial_loop.hpp says how
// long and why), so it can never hang the GPU.

#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>

namespace kerntime::detail {

class blocking_kernel {
public:
  blocking_kernel();
  ~blocking_kernel();
  blocking_kernel(const blocking_kernel&) = delete;
  blocking_kernel& operator=(const blocking_kernel&) = delete;

  // Enqueues the kernel; it spins until release() or `timeout` of GPU time. Each block has a
  // generation of its own, so a new block never re-arms one the GPU has not yet seen released.
  void block(cudaStream_t stream, std::chrono::nanoseconds timeout);
  // Releases the latest block. Safe to call from another thread (the stall watchdog) and twice.
  void release() noexcept;
  // After the stream synchronised: whether a block ended by timeout since the last call.
  [[nodiscard]] bool take_timed_out() noexcept;

private:
  volatile unsigned* flags_ = nullptr; // [0] released generation, [1] timed out; host-mapped
  unsigned* device_flags_ = nullptr;
  std::atomic<unsigned> generation_{0};
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

// Launches `count` empty kernels on `stream`: the probe that measures the launch queue.
void launch_empty_kernels(cudaStream_t stream, int count);

} // namespace kerntime::detail
