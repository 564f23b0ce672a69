#include "measure/summarise_measurement.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "counters/counters_summary.hpp"
#include "result/summarise.hpp"
#include "telemetry/energy_summary.hpp"

namespace kerntime::detail {

measurement_result summarise(timed_trials timed, const protocol& p, runner_facts facts) {
  measurement_result r = summarise_samples(std::move(timed), p);
  r.device = std::move(facts.device);
  r.backend = facts.backend;
  r.backend_reason = facts.backend_reason;
  r.cupti = facts.cupti;
  r.flush_bytes = facts.flush_bytes;
  r.stopping.warmup_iterations = facts.warmup.iterations;
  r.stopping.warmup_settled = facts.warmup.settled;
  if (!facts.warmup.settled) {
    std::string unsettled = fmt::format(
        "warmup auto: the iteration time had not settled after {} iterations (the bound is {} "
        "iterations or {} s); the first trials may still hold warm-up effects",
        facts.warmup.iterations, max_auto_warmup_iterations, max_auto_warmup_time.count());
    if (std::find(r.warnings.begin(), r.warnings.end(), unsettled) == r.warnings.end()) {
      r.warnings.push_back(std::move(unsettled)); // a pooled result's samples may carry it
    }
  }
  if (facts.fallback_warning) {
    r.warnings.insert(r.warnings.begin(), std::move(*facts.fallback_warning));
  }
  if (facts.telemetry) {
    r.telemetry = std::move(*facts.telemetry); // "clocks look locked" is revised by every trial
    r.warnings.insert(r.warnings.end(), facts.telemetry_warnings.begin(),
                      facts.telemetry_warnings.end());
  }
  if (facts.energy_not_read.empty()) {
    r.energy = summarise_energy(facts.energy, p, r.telemetry);
  } else {
    r.energy.unavailable_reason = std::move(facts.energy_not_read);
  }
  if (r.counters.status == counters_status::measured) {
    r.counters.derived = derive_counters(r.counters.metrics_total, r.latency_ns);
  } else if (p.counters && facts.backend == timing_backend::events) {
    // The check before the run says why more precisely when it failed too (e.g. a profiler
    // holds CUPTI); else the reason timing fell back is the reason.
    r.counters = counters_unavailable_because(
        !facts.counters_unavailable.empty()
            ? facts.counters_unavailable
            : "timing fell back to CUDA events (" + facts.backend_reason +
                  "); the counter pass needs CUPTI, which was not available");
  }
  return r;
}

} // namespace kerntime::detail
