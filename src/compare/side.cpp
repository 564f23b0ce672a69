#include "compare/side.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "kerntime/statistics.hpp"
#include "telemetry/throttle_summary.hpp"

namespace kerntime::detail {
namespace {

double value_of(const iteration_sample& s, headline_metric metric) {
  return metric == headline_metric::span ? s.span_ns : s.busy_ns;
}

void append_iterations(const measurement_result& r, headline_metric metric,
                       std::vector<double>& values) {
  for (const auto& trial : r.trials) {
    for (const auto& s : trial.iterations) {
      values.push_back(value_of(s, metric));
    }
  }
}

} // namespace

std::vector<double> side::iterations(headline_metric metric) const {
  std::vector<double> values;
  for (const auto* r : runs) {
    append_iterations(*r, metric, values);
  }
  return values;
}

std::vector<double> side::trial_medians(headline_metric metric) const {
  std::vector<double> medians;
  for (const auto* r : runs) {
    for (const auto& trial : r->trials) {
      std::vector<double> values;
      for (const auto& s : trial.iterations) {
        values.push_back(value_of(s, metric));
      }
      if (!values.empty()) {
        medians.push_back(median(std::move(values)));
      }
    }
  }
  return medians;
}

std::vector<double> side::run_medians(headline_metric metric) const {
  std::vector<double> medians;
  for (const auto* r : runs) {
    std::vector<double> values;
    append_iterations(*r, metric, values);
    medians.push_back(median(std::move(values)));
  }
  return medians;
}

std::optional<double> side::sm_clock_mhz() const {
  std::vector<double> clocks;
  for (const auto* r : runs) {
    for (const auto& trial : r->trials) {
      if (trial.telemetry.measured_sm_clock_mhz) {
        clocks.push_back(*trial.telemetry.measured_sm_clock_mhz);
      }
    }
  }
  return clocks.empty() ? std::nullopt : std::optional(median(std::move(clocks)));
}

std::string side::throttling() const {
  std::vector<trial_telemetry> trials;
  for (const auto* r : runs) {
    for (const auto& trial : r->trials) {
      trials.push_back(trial.telemetry);
    }
  }
  const double threshold =
      runs.empty() ? protocol{}.throttle_threshold : runs.front()->protocol_used.throttle_threshold;
  return describe_throttling(summarise_throttling(trials, threshold));
}

double side::timer_resolution_ns() const {
  double step = 0;
  for (const auto* r : runs) {
    step = std::max(step, r->timer_resolution_ns);
  }
  return step;
}

bool side::all_cupti() const {
  return std::all_of(runs.begin(), runs.end(),
                     [](const auto* r) { return r->backend == timing_backend::cupti; });
}

std::vector<kernel_change> kernel_changes(const side& base, const side& changed) {
  std::map<std::pair<std::string, activity_kind>, kernel_change> by_kernel;
  const auto add = [&](const side& s, bool is_base) {
    const double runs = static_cast<double>(s.runs.size());
    for (const auto* r : s.runs) {
      for (const auto& k : r->kernels) {
        auto& change = by_kernel[{k.name, k.kind}];
        change.name = k.name;
        change.kind = k.kind;
        auto& mean = is_base ? change.base_mean_ns : change.new_mean_ns;
        mean = mean.value_or(0) + k.mean_ns / runs;
        (is_base ? change.base_calls : change.new_calls) += k.calls_per_iteration / runs;
      }
    }
  };
  add(base, true);
  add(changed, false);
  std::vector<kernel_change> changes;
  changes.reserve(by_kernel.size());
  for (auto& [key, change] : by_kernel) {
    changes.push_back(std::move(change));
  }
  std::stable_sort(changes.begin(), changes.end(), [](const auto& a, const auto& b) {
    return std::max(a.base_mean_ns.value_or(0), a.new_mean_ns.value_or(0)) >
           std::max(b.base_mean_ns.value_or(0), b.new_mean_ns.value_or(0));
  });
  return changes;
}

verdict verdict_of(double low, double high, double band) {
  if (low > 1 + band) {
    return verdict::slower;
  }
  if (high < 1 / (1 + band)) {
    return verdict::faster;
  }
  if (low >= 1 / (1 + band) && high <= 1 + band) {
    return verdict::same;
  }
  return verdict::inconclusive;
}

std::optional<std::pair<double, int>> side::preparation_spread() const {
  std::optional<std::pair<double, int>> widest;
  for (const auto* r : runs) {
    if (r->preparation_spread && (!widest || *r->preparation_spread > widest->first)) {
      widest = std::pair{*r->preparation_spread, r->preparations};
    }
  }
  return widest;
}

} // namespace kerntime::detail
