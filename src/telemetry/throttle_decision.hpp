#pragma once
// Was a trial throttled, and do the clocks look locked? Pure decisions over readings, so tests
// feed them real values at the boundaries.

#include <cstdint>
#include <optional>
#include <string>

namespace kerntime::detail {

struct throttle_decision {
  bool throttled = false;
  std::string reason; // empty when not throttled
};

// Throttled when the SM clock measured on the GPU is below `threshold` x the maximum SM clock,
// or when NVML reported a throttling clock-event reason (clock_event_reason::throttling) during
// the trial. A missing measurement or maximum only disables that half of the rule.
[[nodiscard]] throttle_decision decide_throttled(std::optional<double> measured_sm_clock_mhz,
                                                 std::optional<double> max_sm_clock_mhz,
                                                 double threshold,
                                                 std::uint64_t clock_event_reasons);

// NVML has no getter for locked clocks, so kerntime infers them: the clocks "look locked" when the
// current SM clock equals the application (target) SM clock, and the memory clock its application
// clock where both are known. Empty when the SM clocks cannot be read.
[[nodiscard]] std::optional<bool>
clocks_look_locked(std::optional<unsigned> sm_clock_mhz, std::optional<unsigned> application_sm_mhz,
                   std::optional<unsigned> memory_clock_mhz,
                   std::optional<unsigned> application_memory_mhz);

} // namespace kerntime::detail
