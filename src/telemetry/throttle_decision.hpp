#pragma once
// Was a trial throttled, and do the clocks look locked? Pure decisions over readings, so tests
// feed them real values at the boundaries.

#include <cstdint>
#include <optional>
#include <string>

namespace kerntime::detail {

struct throttle_decision {
  bool throttled = false;
  std::optional<double> sm_clock_fraction; // measured / maximum, when both are known
  std::string reason;                      // empty when not throttled
};

// Throttled when the SM clock measured on the GPU during the trial is below `threshold` x the
// maximum SM clock; exactly at the threshold is not. Only the clock the work ran at decides:
// NVML's clock-event reasons (sw_power_cap while the clock stays at 99 % of its maximum) are
// information beside the verdict, never the verdict. Without a measurement or a maximum the
// trial is not judged (not throttled, no fraction).
[[nodiscard]] throttle_decision decide_throttled(std::optional<double> measured_sm_clock_mhz,
                                                 std::optional<double> max_sm_clock_mhz,
                                                 double threshold);

// NVML has no getter for locked clocks, so kerntime infers them: the clocks "look locked" when the
// current SM clock equals the application (target) SM clock, and the memory clock its application
// clock where both are known. Empty when the SM clocks cannot be read.
[[nodiscard]] std::optional<bool>
clocks_look_locked(std::optional<unsigned> sm_clock_mhz, std::optional<unsigned> application_sm_mhz,
                   std::optional<unsigned> memory_clock_mhz,
                   std::optional<unsigned> application_memory_mhz);

} // namespace kerntime::detail
