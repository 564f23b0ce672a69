#pragma once
// What a timer hands on after the trials, and what summarise() turns into a measurement_result:
// every kept trial's iterations and telemetry, the per-kernel breakdown, the trace and the
// warnings. Attribution fills it from CUPTI records; the event timer from its event pairs.

#include <string>
#include <vector>

#include "kerntime/counters.hpp"
#include "kerntime/result.hpp"

namespace kerntime::detail {

struct timed_trials {
  std::vector<trial_result> trials;    // in the order they ran; re-run trials are not here
  std::vector<kernel_summary> kernels; // largest mean first; empty with CUDA events
  std::vector<trace_record> trace;     // the first trial's records (CUPTI only)
  std::vector<std::string> warnings;
  work_behaviour work;        // what the work did beside its GPU time (docs/queue.md)
  double flush_median_ns = 0; // the flush's GPU time per iteration (CUPTI only); 0 otherwise
  stop_reason stopped_because = stop_reason::trial_count; // set by the trial loop
  counters_summary counters; // the counter pass (CUPTI only); derived totals wait for the latency
};

} // namespace kerntime::detail
