#pragma once
// The last stage of a measurement: the samples a timer handed on become a measurement_result with
// its statistics (headline, span, busy, per trial). Pure, so reports and tests see the same
// numbers.

#include <vector>

#include "kerntime/protocol.hpp"
#include "kerntime/result.hpp"
#include "result/timed_trials.hpp"

namespace kerntime::detail {

// Sets protocol_used, the statistics and latency_ns, and moves the trials, breakdown, trace,
// flush time and warnings in. The caller adds what the runner knows (device, backend, telemetry).
// Sets the stopping summary's trials, reason and interval (and warns when stop_at_ci missed its
// target); the caller adds the warm-up it ran.
[[nodiscard]] measurement_result summarise(timed_trials timed, const protocol& p);

// Each trial's median of the headline metric: the independent units the interval is built on.
[[nodiscard]] std::vector<double> headline_medians(const std::vector<trial_result>& trials,
                                                   headline_metric metric);

// The 95 % interval of the median trial median and its relative half-width; both empty with
// fewer than 6 trials. One function, so the stopping rule stops on the interval reports show.
struct median_precision {
  std::optional<confidence_interval> interval;
  std::optional<double> half_width;
};
[[nodiscard]] median_precision precision_of(const std::vector<double>& trial_medians);

} // namespace kerntime::detail
