#pragma once
// The samples a timer handed on become a measurement_result with its statistics (headline, span,
// busy, per trial). Pure, so reports and tests see the same numbers.

#include <optional>
#include <vector>

#include "kerntime/protocol.hpp"
#include "kerntime/result.hpp"
#include "result/timed_trials.hpp"

namespace kerntime::detail {

// The iterations of the first trial whose GPU records the result keeps as its trace (the
// Perfetto trace of --trace, the JSON): the rest add bytes, not insight.
inline constexpr int traced_iterations = 10;

// The samples' part of a result: sets protocol_used, the statistics and latency_ns, and moves the
// trials, breakdown, trace, flush time and warnings in; sets the stopping summary's trials,
// reason and interval (and warns when stop_at_ci missed its target). summarise()
// (measure/summarise_measurement.hpp) closes the result with what the runner knows beside them.
[[nodiscard]] measurement_result summarise_samples(timed_trials timed, const protocol& p);

// Every iteration's span, trial after trial: what the timer's step is read off
// (timer_resolution.hpp; a span is one difference of two timestamps, a busy time a sum of many).
[[nodiscard]] std::vector<double> all_spans(const std::vector<trial_result>& trials);

// The mean of the trials' SM clocks measured on the GPU (nullopt when no trial has one).
[[nodiscard]] std::optional<double> mean_measured_sm_clock(const std::vector<trial_result>& trials);

// Each trial's median of the headline metric: the independent units the interval is built on.
[[nodiscard]] std::vector<double> headline_medians(const std::vector<trial_result>& trials,
                                                   headline_metric metric);

// The 95 % interval of the median trial median, widened by the timer's step on each side (a
// median of values that step by 32 ns is itself known to a step at best), and its relative
// half-width; both empty with fewer than 6 trials. `timer_share`: the step as a fraction of the
// median, the half-width no number of trials can go below. One function, so the stopping rule
// stops on the interval reports show.
struct median_precision {
  std::optional<confidence_interval> interval;
  std::optional<double> half_width;
  double timer_share = 0;
};
[[nodiscard]] median_precision precision_of(const std::vector<double>& trial_medians,
                                            double timer_resolution_ns = 0);

// The precision of the trials a timer has kept so far: what the stopping rule judges.
[[nodiscard]] median_precision precision_so_far(const timed_trials& timed, headline_metric metric);

} // namespace kerntime::detail
