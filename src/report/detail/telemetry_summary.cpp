#include "report/detail/telemetry_summary.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kerntime::detail {
namespace {

template <typename T> void widen(std::optional<T>& low, std::optional<T>& high, T value) {
  low = low ? std::min(*low, value) : value;
  high = high ? std::max(*high, value) : value;
}

template <typename T> void raise(std::optional<T>& high, T value) {
  high = high ? std::max(*high, value) : value;
}

void add_snapshot(telemetry_summary& summary, const gpu_snapshot& snapshot) {
  summary.has_readings = true;
  if (snapshot.sm_clock_mhz) {
    widen(summary.sm_clock_min_mhz, summary.sm_clock_max_mhz, *snapshot.sm_clock_mhz);
  }
  if (snapshot.temperature_c) {
    raise(summary.max_temperature_c, *snapshot.temperature_c);
  }
  if (snapshot.power_w) {
    raise(summary.max_power_w, *snapshot.power_w);
  }
  for (const auto& name : snapshot.clock_event_names) {
    if (std::find(summary.clock_events.begin(), summary.clock_events.end(), name) ==
        summary.clock_events.end()) {
      summary.clock_events.push_back(name);
    }
  }
}

} // namespace

telemetry_summary summarise_telemetry(const measurement_result& result) {
  telemetry_summary summary;
  if (!result.telemetry.available) {
    summary.unavailable_reason = result.telemetry.unavailable_reason;
  }
  std::vector<trial_telemetry> trials;
  trials.reserve(result.trials.size());
  for (const auto& trial : result.trials) {
    trials.push_back(trial.telemetry);
    const auto& t = trial.telemetry;
    if (t.before) {
      add_snapshot(summary, *t.before);
    }
    if (t.after) {
      add_snapshot(summary, *t.after);
    }
    if (t.measured_sm_clock_mhz) {
      summary.has_readings = true;
      widen(summary.measured_sm_clock_min_mhz, summary.measured_sm_clock_max_mhz,
            *t.measured_sm_clock_mhz);
    }
  }
  summary.throttling = summarise_throttling(trials, result.protocol_used.throttle_threshold);
  return summary;
}

std::string describe(const telemetry_summary& s) {
  if (!s.has_readings) {
    if (!s.unavailable_reason.empty()) {
      return "unavailable: " + s.unavailable_reason;
    }
    return {};
  }
  std::vector<std::string> parts;
  if (s.sm_clock_min_mhz) {
    parts.push_back(
        fmt::format("SM clock {}\xE2\x80\x93{} MHz", *s.sm_clock_min_mhz, *s.sm_clock_max_mhz));
  }
  if (s.measured_sm_clock_min_mhz) {
    parts.push_back(fmt::format("on-GPU clock {:.0f}\xE2\x80\x93{:.0f} MHz",
                                *s.measured_sm_clock_min_mhz, *s.measured_sm_clock_max_mhz));
  }
  if (s.max_temperature_c) {
    parts.push_back(fmt::format("max {} \xC2\xB0"
                                "C",
                                *s.max_temperature_c));
  }
  if (s.max_power_w) {
    parts.push_back(fmt::format("max {:.1f} W", *s.max_power_w));
  }
  const throttle_summary& t = s.throttling;
  if (t.trials > 0 && t.judged_trials == 0) {
    parts.emplace_back("throttling not judged: no on-GPU SM clock");
  } else {
    parts.push_back(fmt::format("throttled trials: {} of {}", t.throttled_trials, t.trials));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string join_clock_events(const telemetry_summary& s) {
  return fmt::format("{}", fmt::join(s.clock_events, ";"));
}

} // namespace kerntime::detail
