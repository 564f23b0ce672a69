#pragma once
// The stopwatch behind host_phases (kerntime/result.hpp): where a measurement's host wall time
// went, phase by phase.

#include <chrono>
#include <utility>

namespace kerntime::detail {

class phase_clock {
public:
  // Seconds since the last lap (or since the clock was made); the next lap starts now.
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const std::chrono::duration<double> since = now - last_;
    last_ = now;
    return since.count();
  }

private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// Runs `step` and adds its wall time, in seconds, to `total`.
template <typename Step> void add_seconds_of(double& total, Step&& step) {
  const auto start = std::chrono::steady_clock::now();
  std::forward<Step>(step)();
  total += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace kerntime::detail
