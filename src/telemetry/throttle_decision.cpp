#include "telemetry/throttle_decision.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "telemetry/clock_event_reasons.hpp"

namespace kerntime::detail {

throttle_decision decide_throttled(std::optional<double> measured_sm_clock_mhz,
                                   std::optional<double> max_sm_clock_mhz, double threshold,
                                   std::uint64_t clock_event_reasons) {
  std::string reason;
  if (measured_sm_clock_mhz && max_sm_clock_mhz && *max_sm_clock_mhz > 0) {
    // Compare the ratio, not measured against threshold * max: a correctly rounded division of
    // a clock exactly at the threshold (1782 / 1980) equals the literal 0.9, while the product
    // 0.9 * 1980 rounds above 1782 and would flag a trial sitting exactly on the boundary.
    const double fraction = *measured_sm_clock_mhz / *max_sm_clock_mhz;
    if (fraction < threshold) {
      reason = fmt::format("SM clock {:.0f} MHz measured on the GPU is {:.1f} % of the maximum "
                           "{:.0f} MHz (threshold {:.1f} %)",
                           *measured_sm_clock_mhz, fraction * 100.0, *max_sm_clock_mhz,
                           threshold * 100.0);
    }
  }
  if (const std::uint64_t throttling = clock_event_reasons & clock_event_reason::throttling;
      throttling != 0) {
    if (!reason.empty()) {
      reason += "; ";
    }
    reason += fmt::format("NVML clock-event reasons: {}",
                          fmt::join(decode_clock_event_reasons(throttling), ", "));
  }
  return {!reason.empty(), reason};
}

std::optional<bool> clocks_look_locked(std::optional<unsigned> sm_clock_mhz,
                                       std::optional<unsigned> application_sm_mhz,
                                       std::optional<unsigned> memory_clock_mhz,
                                       std::optional<unsigned> application_memory_mhz) {
  if (!sm_clock_mhz || !application_sm_mhz) {
    return std::nullopt;
  }
  if (*sm_clock_mhz != *application_sm_mhz) {
    return false;
  }
  if (memory_clock_mhz && application_memory_mhz && *memory_clock_mhz != *application_memory_mhz) {
    return false;
  }
  return true;
}

} // namespace kerntime::detail
