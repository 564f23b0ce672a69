#include "result/summarise.hpp"

#include <fmt/format.h>

#include <utility>

#include "kerntime/statistics.hpp"
#include "result/message_words.hpp"
#include "result/timer_resolution.hpp"

namespace kerntime::detail {
namespace {

double headline_of(const iteration_sample& s, headline_metric metric) {
  return metric == headline_metric::span ? s.span_ns : s.busy_ns;
}

// Why stop_at_ci ended without reaching its target, said once in the result's warnings.
std::string missed_target_warning(const protocol& p, const stopping_summary& s,
                                  double resolution_ns, double median_ns) {
  const std::string reached =
      s.half_width ? fmt::format("±{:.2f} %", *s.half_width * 100) : "no interval yet";
  if (s.reason == stop_reason::timer_resolution) {
    return fmt::format("stop_at_ci: the timer steps by {:.0f} ns, {:.2f} % of the median, so no "
                       "number of trials narrows the interval to the ±{} % asked; it stopped "
                       "after {} at {}; measure more work per iteration or accept the wider "
                       "interval",
                       resolution_ns, 100 * resolution_ns / median_ns, *p.stop_at_ci,
                       counted(s.trials, "trial"), reached);
  }
  const std::string bound = s.reason == stop_reason::max_trials
                                ? fmt::format("max_trials ({})", p.max_trials)
                                : fmt::format("max_time ({} s)", p.max_time_s);
  return fmt::format("stop_at_ci: the interval of the median reached {}, not the ±{} % asked, "
                     "when {} ended the run after {}; raise the bound or accept the wider "
                     "interval",
                     reached, *p.stop_at_ci, bound, counted(s.trials, "trial"));
}

} // namespace

std::vector<double> all_spans(const std::vector<trial_result>& trials) {
  std::vector<double> spans;
  for (const auto& trial : trials) {
    for (const auto& s : trial.iterations) {
      spans.push_back(s.span_ns);
    }
  }
  return spans;
}

std::optional<double> mean_measured_sm_clock(const std::vector<trial_result>& trials) {
  double sum = 0;
  int count = 0;
  for (const auto& trial : trials) {
    if (trial.telemetry.measured_sm_clock_mhz) {
      sum += *trial.telemetry.measured_sm_clock_mhz;
      ++count;
    }
  }
  return count > 0 ? std::optional<double>(sum / count) : std::nullopt;
}

std::vector<double> headline_medians(const std::vector<trial_result>& trials,
                                     headline_metric metric) {
  std::vector<double> medians;
  medians.reserve(trials.size());
  for (const auto& trial : trials) {
    std::vector<double> values;
    values.reserve(trial.iterations.size());
    for (const auto& s : trial.iterations) {
      values.push_back(headline_of(s, metric));
    }
    medians.push_back(median(std::move(values)));
  }
  return medians;
}

median_precision precision_of(const std::vector<double>& trial_medians,
                              double timer_resolution_ns) {
  median_precision p;
  if (trial_medians.empty()) {
    return p;
  }
  const double middle = median(trial_medians);
  p.timer_share = middle > 0 ? timer_resolution_ns / middle : 0;
  p.interval = median_interval(trial_medians);
  if (p.interval) {
    p.interval->low -= timer_resolution_ns;
    p.interval->high += timer_resolution_ns;
    p.half_width = relative_half_width(*p.interval, middle);
  }
  return p;
}

median_precision precision_so_far(const timed_trials& timed, headline_metric metric) {
  return precision_of(headline_medians(timed.trials, metric),
                      timer_step_ns(all_spans(timed.trials)));
}

measurement_result summarise_samples(timed_trials timed, const protocol& p) {
  std::vector<double> headline;
  std::vector<double> spans;
  std::vector<double> busies;
  std::vector<std::vector<double>> per_trial;
  per_trial.reserve(timed.trials.size());
  for (const auto& trial : timed.trials) {
    std::vector<double> trial_headline;
    trial_headline.reserve(trial.iterations.size());
    for (const auto& s : trial.iterations) {
      const double value = headline_of(s, p.metric);
      headline.push_back(value);
      trial_headline.push_back(value);
      spans.push_back(s.span_ns);
      busies.push_back(s.busy_ns);
    }
    per_trial.push_back(std::move(trial_headline));
  }
  measurement_result r;
  r.protocol_used = p;
  r.stats = summarise_values(headline);
  r.span = summarise_values(spans);
  r.busy = summarise_values(busies);
  r.trials_summary = summarise_trials(per_trial);
  r.latency_ns = r.stats.median;
  r.stopping.trials = static_cast<int>(timed.trials.size());
  r.stopping.reason = timed.stopped_because;
  r.timer_resolution_ns = timer_step_ns(std::move(spans));
  const median_precision precision = precision_of(r.trials_summary.medians, r.timer_resolution_ns);
  r.stopping.median_interval = precision.interval;
  r.stopping.half_width = precision.half_width;
  r.trials = std::move(timed.trials);
  r.kernels = std::move(timed.kernels);
  r.trace = std::move(timed.trace);
  // The first trial's first iterations are what a trace is looked at for; all 50 (or 500) of
  // them were two thirds of a result file's bytes.
  std::erase_if(r.trace, [](const trace_record& t) { return t.iteration >= traced_iterations; });
  r.flush_median_ns = timed.flush_median_ns;
  r.warnings = std::move(timed.warnings);
  r.work = std::move(timed.work);
  r.counters = std::move(timed.counters);
  if (p.stop_at_ci && r.stopping.reason != stop_reason::interval_reached) {
    r.warnings.push_back(missed_target_warning(p, r.stopping, r.timer_resolution_ns, r.latency_ns));
  }
  return r;
}

} // namespace kerntime::detail
