#include "telemetry/throttle_summary.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "result/message_words.hpp"
#include "telemetry/clock_event_reasons.hpp"

namespace kerntime::detail {
namespace {

void widen(std::optional<value_range>& range, double value) {
  if (!range) {
    range = value_range{value, value};
    return;
  }
  range->low = std::min(range->low, value);
  range->high = std::max(range->high, value);
}

std::uint64_t slowdown_of(const std::optional<gpu_snapshot>& snapshot) {
  return snapshot && snapshot->clock_event_reasons
             ? *snapshot->clock_event_reasons & clock_event_reason::slowdown
             : 0;
}

// "1965", or "1934–1965" when the two ends read differently.
template <typename Format> std::string range_text(const value_range& range, Format format) {
  const std::string low = format(range.low);
  const std::string high = format(range.high);
  return low == high ? low : fmt::format("{}\xE2\x80\x93{}", low, high);
}

std::string mhz_text(double mhz) {
  return fmt::format("{:.0f}", mhz);
}

// A whole percent, except that a clock below the maximum never reads "100": 1975 of 1980 MHz is
// 99.7 %.
std::string percent_text(double fraction) {
  if (std::round(fraction * 100.0) < 100.0 || fraction >= 1.0) {
    return fmt::format("{:.0f}", fraction * 100.0);
  }
  return fmt::format("{:.1f}", std::floor(fraction * 1000.0) / 10.0);
}

// Below the threshold, and shown so: 0.8995 against 0.9 reads 89.9, not a rounded 90.
std::string percent_below_text(double fraction, double threshold) {
  if (std::round(fraction * 100.0) < threshold * 100.0) {
    return percent_text(fraction);
  }
  return fmt::format("{:.1f}", std::floor(fraction * 1000.0) / 10.0);
}

} // namespace

throttle_summary summarise_throttling(const std::vector<trial_telemetry>& trials,
                                      double threshold) {
  throttle_summary s;
  s.trials = static_cast<int>(trials.size());
  s.threshold = threshold;
  for (const trial_telemetry& t : trials) {
    if (t.sm_clock_fraction) {
      ++s.judged_trials;
    }
    if (t.throttled) {
      ++s.throttled_trials;
      if (t.measured_sm_clock_mhz) {
        widen(s.throttled_mhz, *t.measured_sm_clock_mhz);
      }
      if (t.sm_clock_fraction) {
        widen(s.throttled_fraction, *t.sm_clock_fraction);
      }
    }
    const std::uint64_t slowdown = slowdown_of(t.before) | slowdown_of(t.after);
    if (slowdown == 0) {
      continue;
    }
    ++s.trials_with_slowdown_reasons;
    if (t.measured_sm_clock_mhz) {
      widen(s.slowdown_mhz, *t.measured_sm_clock_mhz);
    }
    if (t.sm_clock_fraction) {
      widen(s.slowdown_fraction, *t.sm_clock_fraction);
    }
    for (const std::string& name : decode_clock_event_reasons(slowdown)) {
      auto seen = std::find_if(s.slowdown_reasons.begin(), s.slowdown_reasons.end(),
                               [&](const slowdown_reason_count& c) { return c.name == name; });
      if (seen == s.slowdown_reasons.end()) {
        s.slowdown_reasons.push_back({name, 1});
      } else {
        ++seen->trials;
      }
    }
  }
  return s;
}

std::string describe_throttling(const throttle_summary& s) {
  if (s.throttled_trials == 0) {
    return {};
  }
  std::string line = fmt::format("{} of {} below {:.4g} % of max SM clock", s.throttled_trials,
                                 counted(s.trials, "trial"), s.threshold * 100.0);
  if (s.throttled_mhz) {
    line += ": " + range_text(*s.throttled_mhz, mhz_text) + " MHz";
  }
  if (s.throttled_fraction) {
    const double threshold = s.threshold;
    line += ", " +
            range_text(*s.throttled_fraction,
                       [threshold](double f) { return percent_below_text(f, threshold); }) +
            " %";
  }
  return line;
}

std::string describe_clock_events(const throttle_summary& s) {
  if (s.trials_with_slowdown_reasons == 0) {
    return {};
  }
  const bool counts_differ = std::any_of(
      s.slowdown_reasons.begin(), s.slowdown_reasons.end(),
      [&](const slowdown_reason_count& c) { return c.trials != s.trials_with_slowdown_reasons; });
  std::string names;
  for (const slowdown_reason_count& c : s.slowdown_reasons) {
    names += names.empty() ? "" : ", ";
    names += counts_differ ? fmt::format("{} ({})", c.name, c.trials) : c.name;
  }
  std::string clock = "SM clock not measured on the GPU";
  if (s.slowdown_mhz) {
    clock = "SM clock " + range_text(*s.slowdown_mhz, mhz_text) + " MHz";
    if (s.slowdown_fraction) {
      clock += ", " + range_text(*s.slowdown_fraction, percent_text) + " % of max";
    }
  }
  return fmt::format("{} of {}: NVML {}; {}", s.trials_with_slowdown_reasons,
                     counted(s.trials, "trial"), names, clock);
}

} // namespace kerntime::detail
