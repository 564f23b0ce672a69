#pragma once
// What a timer hands back after running the protocol's trials.

#include <string>
#include <vector>

#include "kerntime/measure.hpp"
#include "kerntime/result.hpp"
#include "measure/blocking_kernel.hpp"
#include "measure/l2_flush.hpp"

namespace kerntime::detail {

class telemetry_probe;

struct timed_trials {
  std::vector<std::vector<iteration_sample>> samples; // [trial][iteration]
  std::vector<trial_telemetry> telemetry;             // one per kept trial
  std::vector<kernel_summary> kernels;
  std::vector<trace_record> trace;
  std::vector<std::string> warnings;
  double flush_median_ns = 0;
};

// Everything a timer needs to run iterations.
struct iteration_context {
  const work_function& work;
  const protocol& settings;
  cudaStream_t stream;
  l2_flush* flush;              // null when flush_l2 is off
  telemetry_probe* probe;       // null when telemetry is off
  blocking_kernel* blocker;     // holds each trial's queue until it is fully enqueued; never null
  long long next_iteration = 0; // counts every call of `work`, warmup included

  // The input set of the next call, rotating over all sets.
  int take_input_set() { return static_cast<int>(next_iteration++ % settings.input_sets); }
};

// The trial loop shared by both timers: telemetry around each trial, and re-runs of throttled
// trials when asked (at most max_reruns in all, after a recovery pause).
inline constexpr int max_throttle_reruns = 3;
inline constexpr int throttle_recovery_ms = 200;

// Long enough that queueing a trial never reaches it; short enough that a full launch queue
// (the host blocked behind the blocking kernel) costs one second, not a hang.
inline constexpr double blocking_timeout_ms = 1000.0;

// The warning for trials whose queue was released by the blocking kernel's timeout.
[[nodiscard]] std::string blocking_timeout_warning(int timeouts);

} // namespace kerntime::detail
