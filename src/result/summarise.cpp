#include "result/summarise.hpp"

#include <utility>

#include "kerntime/statistics.hpp"

namespace kerntime::detail {

measurement_result summarise(timed_trials timed, const protocol& p) {
  std::vector<double> headline;
  std::vector<double> spans;
  std::vector<double> busies;
  std::vector<std::vector<double>> per_trial;
  per_trial.reserve(timed.trials.size());
  for (const auto& trial : timed.trials) {
    std::vector<double> trial_headline;
    trial_headline.reserve(trial.iterations.size());
    for (const auto& s : trial.iterations) {
      const double value = p.metric == headline_metric::span ? s.span_ns : s.busy_ns;
      headline.push_back(value);
      trial_headline.push_back(value);
      spans.push_back(s.span_ns);
      busies.push_back(s.busy_ns);
    }
    per_trial.push_back(std::move(trial_headline));
  }
  measurement_result r;
  r.protocol_used = p;
  r.stats = summarize(headline);
  r.span = summarize(spans);
  r.busy = summarize(busies);
  r.trials_summary = summarize_trials(per_trial);
  r.latency_ns = r.stats.median;
  r.trials = std::move(timed.trials);
  r.kernels = std::move(timed.kernels);
  r.trace = std::move(timed.trace);
  r.flush_median_ns = timed.flush_median_ns;
  r.warnings = std::move(timed.warnings);
  return r;
}

} // namespace kerntime::detail
