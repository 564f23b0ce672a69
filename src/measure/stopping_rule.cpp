#include "measure/stopping_rule.hpp"

#include "result/summarise.hpp"

namespace kerntime::detail {

std::optional<stop_reason> stop_after(const protocol& p, int kept, double elapsed_s,
                                      const std::function<std::vector<double>()>& trial_medians) {
  if (!p.stop_at_ci) {
    return kept >= p.trials ? std::optional(stop_reason::trial_count) : std::nullopt;
  }
  if (kept < p.trials) {
    return std::nullopt;
  }
  const median_precision precision = precision_of(trial_medians());
  if (precision.half_width && *precision.half_width * 100 <= *p.stop_at_ci) {
    return stop_reason::interval_reached;
  }
  if (kept >= p.max_trials) {
    return stop_reason::max_trials;
  }
  if (elapsed_s >= p.max_time_s) {
    return stop_reason::max_time;
  }
  return std::nullopt;
}

} // namespace kerntime::detail
