#include "compare/pooled_result.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "compare/ab_comparison.hpp"
#include "kerntime/errors.hpp"
#include "kerntime/statistics.hpp"
#include "measure/summarise_measurement.hpp"
#include "result/message_words.hpp"
#include "result/timed_trials.hpp"

namespace kerntime::detail {
namespace {

// Each kernel's mean per iteration averaged over the preparations (a preparation that did not
// run it counts as zero), largest first.
std::vector<kernel_summary>
pooled_kernels(const std::vector<const measurement_result*>& preparations) {
  const double count = static_cast<double>(preparations.size());
  std::map<std::pair<std::string, activity_kind>, kernel_summary> by_kernel;
  std::map<std::pair<std::string, activity_kind>, std::vector<double>> medians;
  std::vector<std::pair<std::string, activity_kind>> order;
  for (const auto* r : preparations) {
    for (const auto& k : r->kernels) {
      const auto key = std::pair{k.name, k.kind};
      auto [it, inserted] = by_kernel.try_emplace(key);
      if (inserted) {
        it->second.name = k.name;
        it->second.kind = k.kind;
        order.push_back(key);
      }
      it->second.calls_per_iteration += k.calls_per_iteration / count;
      it->second.mean_ns += k.mean_ns / count;
      it->second.share += k.share / count;
      medians[key].push_back(k.median_ns);
    }
  }
  std::vector<kernel_summary> kernels;
  kernels.reserve(order.size());
  for (const auto& key : order) {
    auto k = by_kernel.at(key);
    k.median_ns = median(medians.at(key));
    kernels.push_back(std::move(k));
  }
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const auto& a, const auto& b) { return a.mean_ns > b.mean_ns; });
  return kernels;
}

void append_unique(std::vector<std::string>& to, const std::string& item) {
  if (std::find(to.begin(), to.end(), item) == to.end()) {
    to.push_back(item);
  }
}

void add_work(work_behaviour& total, const work_behaviour& w) {
  total.synchronizing_iterations += w.synchronizing_iterations;
  for (const auto& call : w.synchronizing_calls) {
    append_unique(total.synchronizing_calls, call);
  }
  total.host_gap_iterations += w.host_gap_iterations;
  total.judged_iterations += w.judged_iterations;
  total.longest_host_gap_ns = std::max(total.longest_host_gap_ns, w.longest_host_gap_ns);
  for (const auto& k : w.rotation_added_kernels) {
    append_unique(total.rotation_added_kernels, k);
  }
}

} // namespace

std::optional<double> spread_of_preparations(const std::vector<double>& times_ns) {
  if (times_ns.size() < 2) {
    return std::nullopt;
  }
  std::vector<double> logs;
  logs.reserve(times_ns.size());
  for (const double t : times_ns) {
    if (!(t > 0) || !std::isfinite(t)) {
      return std::nullopt;
    }
    logs.push_back(std::log(t));
  }
  return summarise_values(logs).stdev; // the sample SD (n - 1)
}

namespace {

// Where every preparation read energy over its own window (each long enough for NVML's counter),
// their sum: the joules over the iterations, over the seconds. Else `not_read`, which says why.
energy_summary pooled_energy(const std::vector<const measurement_result*>& preparations,
                             const energy_summary& not_read) {
  double joules = 0;
  double seconds = 0;
  std::size_t iterations = 0;
  for (const auto* r : preparations) {
    const energy_summary& e = r->energy;
    if (!e.available || !e.joules_per_iteration || !e.window_s || e.window_iterations == 0) {
      return not_read;
    }
    joules += *e.joules_per_iteration * static_cast<double>(e.window_iterations);
    seconds += *e.window_s;
    iterations += e.window_iterations;
  }
  energy_summary e;
  e.available = true;
  e.joules_per_iteration = joules / static_cast<double>(iterations);
  e.average_watts = joules / seconds;
  e.window_s = seconds;
  e.window_iterations = iterations;
  return e;
}

void add_phases(host_phases& total, const host_phases& p) {
  for (const auto& [name, member] : host_phase_names) {
    total.*member += p.*member;
  }
}

} // namespace

measurement_result pool_preparations(const std::vector<const measurement_result*>& preparations) {
  if (preparations.empty()) {
    throw invalid_argument("pool_preparations needs at least one preparation's result");
  }
  const measurement_result& first = *preparations.front();
  timed_trials timed;
  std::vector<double> flush_medians;
  for (const auto* r : preparations) {
    timed.trials.insert(timed.trials.end(), r->trials.begin(), r->trials.end());
    for (const auto& w : r->warnings) {
      append_unique(timed.warnings, w);
    }
    add_work(timed.work, r->work);
    flush_medians.push_back(r->flush_median_ns);
  }
  timed.kernels = pooled_kernels(preparations);
  timed.trace = first.trace;
  timed.flush_median_ns = median(std::move(flush_medians));
  protocol p = first.protocol_used;
  p.trials = static_cast<int>(timed.trials.size());
  p.stop_at_ci.reset();
  // The first preparation's facts; the timer is CUDA events if any preparation fell back to
  // them, with that one's reason. Their warnings are among the samples' already.
  const auto events_timed =
      std::find_if(preparations.begin(), preparations.end(),
                   [](const auto* each) { return each->backend == timing_backend::events; });
  const measurement_result& timer = events_timed != preparations.end() ? **events_timed : first;
  runner_facts facts;
  facts.device = first.device;
  facts.backend = timer.backend;
  facts.backend_reason = timer.backend_reason;
  facts.cupti = first.cupti;
  facts.flush_bytes = first.flush_bytes;
  facts.warmup = {.iterations = first.stopping.warmup_iterations,
                  .settled = first.stopping.warmup_settled};
  facts.telemetry = first.telemetry;
  facts.energy_not_read = fmt::format(
      "pooled from {}, not each of which read energy over its own trials (NVML's counter needs "
      "at least 2 s of them); measure energy in one preparation (kerntime run --preparations 1)",
      counted(preparations.size(), "preparation"));
  measurement_result r = summarise(std::move(timed), p, std::move(facts));
  std::vector<double> times;
  r.preparations = 0;
  for (const auto* each : preparations) { // the host time, stamped after as for any measurement
    add_phases(r.phases, each->phases);
    r.wall_seconds += each->wall_seconds;
    r.preparations += each->preparations;
    times.push_back(preparation_time_ns(*each));
  }
  r.preparation_spread = spread_of_preparations(times);
  r.energy = pooled_energy(preparations, r.energy);
  return r;
}

} // namespace kerntime::detail
