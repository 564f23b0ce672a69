#pragma once
// The one-line view of a state's GPU telemetry shown by markdown, JUnit, CSV and HTML: clock
// range, hottest and most power-hungry reading, clock-event reasons seen and throttled trials,
// and the throttle summary (telemetry/throttle_summary.hpp) in the words the warnings use. The
// JSON keeps every reading instead.

#include <optional>
#include <string>
#include <vector>

#include "kerntime/result.hpp"
#include "telemetry/throttle_summary.hpp"

namespace kerntime::detail {

struct telemetry_summary {
  bool has_readings = false;      // at least one NVML snapshot or on-GPU clock in some trial
  std::string unavailable_reason; // NVML could not be used (device_telemetry)
  std::optional<unsigned> sm_clock_min_mhz; // NVML, before and after every trial
  std::optional<unsigned> sm_clock_max_mhz;
  std::optional<double> measured_sm_clock_min_mhz; // the on-GPU clock check
  std::optional<double> measured_sm_clock_max_mhz;
  std::optional<unsigned> max_temperature_c;
  std::optional<double> max_power_w;
  std::vector<std::string> clock_events; // every decoded reason seen, in first-seen order
  throttle_summary throttling;           // the clock rule's verdicts and NVML's slowdown reasons
};

[[nodiscard]] telemetry_summary summarise_telemetry(const measurement_result& result);

// "SM clock 1755–1980 MHz, on-GPU clock 1740–1975 MHz, max 62 °C, max 412.5 W, throttled
// trials: 1 of 5" ("throttling not judged: no on-GPU SM clock" when no trial could be judged);
// "unavailable: reason"; empty when nothing was recorded. NVML's reasons have their own line,
// describe_clock_events (throttle_summary.hpp).
[[nodiscard]] std::string describe(const telemetry_summary& summary);

// "sw_power_cap;hw_slowdown": reason names are identifiers, so a semicolon keeps CSV cells and
// JUnit property values unambiguous.
[[nodiscard]] std::string join_clock_events(const telemetry_summary& summary);

} // namespace kerntime::detail
