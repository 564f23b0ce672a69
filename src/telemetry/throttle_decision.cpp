#include "telemetry/throttle_decision.hpp"

#include <fmt/format.h>

namespace kerntime::detail {

throttle_decision decide_throttled(std::optional<double> measured_sm_clock_mhz,
                                   std::optional<double> max_sm_clock_mhz, double threshold) {
  throttle_decision decision;
  if (!measured_sm_clock_mhz || !max_sm_clock_mhz || *max_sm_clock_mhz <= 0) {
    return decision;
  }
  // Compare the ratio, not measured against threshold * max: a correctly rounded division of a
  // clock exactly at the threshold (1782 / 1980) equals the literal 0.9, while the product
  // 0.9 * 1980 rounds above 1782 and would flag a trial sitting exactly on the boundary.
  const double fraction = *measured_sm_clock_mhz / *max_sm_clock_mhz;
  decision.sm_clock_fraction = fraction;
  if (fraction < threshold) {
    decision.throttled = true;
    decision.reason =
        fmt::format("SM clock {:.0f} MHz measured on the GPU is {:.1f} % of the "
                    "maximum {:.0f} MHz (threshold {:.4g} %)",
                    *measured_sm_clock_mhz, fraction * 100.0, *max_sm_clock_mhz, threshold * 100.0);
  }
  return decision;
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
