#include "measure/stall_watchdog.hpp"

namespace kerntime::detail {

stall_watchdog::stall_watchdog() : thread_([this] { watch(); }) {}

stall_watchdog::~stall_watchdog() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

std::int64_t stall_watchdog::now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void stall_watchdog::arm(blocking_kernel& blocker, std::chrono::nanoseconds stall) {
  {
    const std::lock_guard lock(mutex_);
    steps_.store(0);
    last_step_ns_.store(now_ns());
    released_.store(false);
    released_at_.reset();
    stall_ = stall;
    blocker_ = &blocker;
  }
  wake_.notify_all();
}

void stall_watchdog::step() noexcept {
  steps_.fetch_add(1, std::memory_order_relaxed);
  last_step_ns_.store(now_ns(), std::memory_order_relaxed);
}

std::optional<int> stall_watchdog::disarm() {
  const std::lock_guard lock(mutex_);
  blocker_ = nullptr;
  return released_at_;
}

void stall_watchdog::watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (blocker_ == nullptr || released_at_) {
      wake_.wait(lock);
      continue;
    }
    // Checks four times per stall period: a stall is seen within 1.25 periods.
    wake_.wait_for(lock, stall_ / 4);
    if (blocker_ == nullptr || released_at_ || stopping_) {
      continue;
    }
    if (now_ns() - last_step_ns_.load() >= stall_.count()) {
      blocker_->release();
      released_at_ = steps_.load();
      released_.store(true);
    }
  }
}

} // namespace kerntime::detail
