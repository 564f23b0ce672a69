#include "measure/stopping_rule.hpp"

namespace kerntime::detail {

std::optional<stop_reason> stop_after(const protocol& p, int kept, double elapsed_s,
                                      const std::function<median_precision()>& precision) {
  if (!p.stop_at_ci) {
    return kept >= p.trials ? std::optional(stop_reason::trial_count) : std::nullopt;
  }
  if (kept < p.trials) {
    return std::nullopt;
  }
  const median_precision reached = precision();
  if (reached.half_width && *reached.half_width * 100 <= *p.stop_at_ci) {
    return stop_reason::interval_reached;
  }
  if (reached.timer_share * 100 >= *p.stop_at_ci) {
    return stop_reason::timer_resolution;
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
