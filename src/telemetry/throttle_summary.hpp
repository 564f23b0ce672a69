#pragma once
// A state's throttling in one line, not one line per trial: how many trials the clock rule
// flagged (throttle_decision.hpp), and beside it, as information, in how many NVML named a
// slowdown reason and at what SM clock those trials ran. The measurement's warnings, every report
// and compare say it in these words:
//   "2 of 5 trials below 90 % of max SM clock: 1680 MHz, 85 %"
//   "5 of 5 trials: NVML sw_power_cap; SM clock 1965 MHz, 99 % of max"

#include <optional>
#include <string>
#include <vector>

#include "kerntime/telemetry.hpp"

namespace kerntime::detail {

struct value_range {
  double low = 0;
  double high = 0;
};

struct slowdown_reason_count {
  std::string name; // as decode_clock_event_reasons names it, e.g. "sw_power_cap"
  int trials = 0;   // trials whose NVML snapshot before or after named it
};

struct throttle_summary {
  int trials = 0;
  double threshold = 0;  // the protocol's throttle_threshold, a fraction of the maximum SM clock
  int judged_trials = 0; // trials with a measured clock and a maximum to compare it with
  int throttled_trials = 0;
  std::optional<value_range> throttled_mhz; // the on-GPU clock of the throttled trials
  std::optional<value_range> throttled_fraction;
  // Information, not a verdict: NVML's slowdown reasons (clock_event_reason::slowdown).
  int trials_with_slowdown_reasons = 0;
  std::vector<slowdown_reason_count> slowdown_reasons; // first seen first
  std::optional<value_range> slowdown_mhz;             // the on-GPU clock of those trials
  std::optional<value_range> slowdown_fraction;
};

[[nodiscard]] throttle_summary summarise_throttling(const std::vector<trial_telemetry>& trials,
                                                    double threshold);

// "2 of 5 trials below 90 % of max SM clock: 1680 MHz, 85 %" (a range, "1680–1753 MHz, 85–88 %",
// when the trials differ); empty when no trial was throttled. A percentage that would round up
// to the threshold is shown to a tenth below it (89.9 %, never "below 90 %: 90 %").
[[nodiscard]] std::string describe_throttling(const throttle_summary& summary);

// "5 of 5 trials: NVML sw_power_cap; SM clock 1965 MHz, 99 % of max"; with several reasons each
// names its trials when they differ ("NVML sw_power_cap (5), hw_slowdown (1)"); "SM clock not
// measured on the GPU" without the clock check. Empty when NVML named no slowdown reason.
[[nodiscard]] std::string describe_clock_events(const throttle_summary& summary);

} // namespace kerntime::detail
