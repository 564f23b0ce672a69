#pragma once
// Releases the blocking kernel when the host stops queueing: a launch that blocks because the
// launch queue is full, or work that waits for the GPU (a synchronize, a copy to the host), can
// only go on once the GPU runs what is queued. Without this, the host would wait for the blocking
// kernel's timeout. The step count at the release says how far queueing got (queue_plan.hpp
// learns from it).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>

#include "measure/blocking_kernel.hpp"

namespace kerntime::detail {

class stall_watchdog {
public:
  stall_watchdog();
  ~stall_watchdog();
  stall_watchdog(const stall_watchdog&) = delete;
  stall_watchdog& operator=(const stall_watchdog&) = delete;

  // From now until disarm(): when no step() comes for `stall`, releases `blocker`.
  void arm(blocking_kernel& blocker, std::chrono::nanoseconds stall);
  // The host queued one more step (an iteration, a probe launch).
  void step() noexcept;
  // Stops watching. The steps counted before it released the blocker, if it did.
  std::optional<int> disarm();
  // Whether it has released the blocker since arm().
  [[nodiscard]] bool released() const noexcept { return released_.load(); }

private:
  void watch();
  [[nodiscard]] static std::int64_t now_ns() noexcept;

  std::mutex mutex_; // guards blocker_, stall_, released_at_, stopping_
  std::condition_variable wake_;
  blocking_kernel* blocker_ = nullptr; // armed while not null
  std::chrono::nanoseconds stall_{};
  std::optional<int> released_at_;
  bool stopping_ = false;
  std::atomic<int> steps_{0};
  std::atomic<std::int64_t> last_step_ns_{0};
  std::atomic<bool> released_{false};
  std::thread thread_; // last: starts after every member it reads
};

} // namespace kerntime::detail
