#include "cli/counter_phase.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "counters/counters_summary.hpp"

namespace kerntime::detail {

std::string_view to_string(counter_phase phase) {
  return phase == counter_phase::timing ? "timing" : "counters";
}

std::optional<counter_phase> parse_counter_phase(std::string_view text) {
  if (text == "timing") {
    return counter_phase::timing;
  }
  if (text == "counters") {
    return counter_phase::counters;
  }
  return std::nullopt;
}

protocol protocol_for_phase(const protocol& p, counter_phase phase) {
  protocol phased = p;
  if (phase == counter_phase::timing) {
    phased.counters = false;
    phased.metrics.clear();
    phased.counters_only = false;
  } else {
    phased.counters = true;
    phased.counters_only = true;
  }
  return phased;
}

void merge_counter_phase(std::vector<benchmark_run>& timed,
                         const std::vector<benchmark_run>& counted, const protocol& asked) {
  for (benchmark_run& run : timed) {
    if (run.status != run_status::ok || !run.result) {
      continue;
    }
    run.result->protocol_used.counters = true;
    run.result->protocol_used.metrics = asked.metrics;
    const auto found = std::find_if(counted.begin(), counted.end(), [&](const benchmark_run& c) {
      return c.plan_index == run.plan_index;
    });
    if (found == counted.end()) {
      run.result->counters = counters_unavailable_because(
          "the state's counter pass did not run (its worker stopped before it)");
    } else if (found->status != run_status::ok || !found->result) {
      run.result->counters = counters_unavailable_because(fmt::format(
          "the state's counter pass {}: {}",
          found->status == run_status::skipped ? "was skipped" : "failed", found->message));
    } else {
      run.result->counters = found->result->counters;
      rederive_counters(run.result->counters, run.result->kernels, run.result->latency_ns);
    }
  }
}

} // namespace kerntime::detail
