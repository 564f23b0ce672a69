#pragma once
// The counter pass: one iteration of the work profiled with CUPTI's range profiler in auto range +
// kernel replay, after the timing trials and before CUPTI is released. Each kernel launch becomes
// one range; CUPTI replays the kernel once per pass and restores its memory in between, so one
// call of the work is enough. It measures counters, never time: under kernel replay activity
// records read zero, so it never shares CUPTI with a timing trial.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "counters/metric_plan.hpp"
#include "counters/range_attribution.hpp"

namespace kerntime::detail {

// What is collected: the names asked for (the default set when none), then the range duration
// unless asked for already.
[[nodiscard]] std::vector<std::string> collected_metrics(const std::vector<std::string>& asked);

// The chip CUPTI names device `ordinal` ("GH100"), asked once per device and process (profiler
// initialise, chip name, de-initialise). Throws counters_unavailable with the reason.
[[nodiscard]] std::string device_chip(int ordinal);

// collected_metrics(asked) checked against device `ordinal`'s chip before anything runs: throws
// unknown_metrics (an invalid_argument naming each unknown metric, the chip and its closest
// names) or counters_unavailable. A set checked once for a chip is not asked again.
[[nodiscard]] metric_plan check_device_metrics(int ordinal, const std::vector<std::string>& asked);

struct counter_pass_request {
  std::vector<std::string> metrics; // as asked; empty: default_metrics()
  int device_ordinal = 0;
  std::size_t expected_ranges = 0; // kernel launches of one timed iteration
};

struct counter_pass_outcome {
  std::optional<std::string> unavailable; // why no counters were collected, and the fix
  std::string chip;
  std::vector<std::string> metrics; // collected_metrics(request.metrics)
  std::size_t passes = 0;
  std::vector<profiled_range> ranges; // in launch order
  std::size_t dropped_ranges = 0;     // ranges CUPTI could not keep
  double seconds = 0;                 // host wall time of the whole pass
};

// Runs `prepare` (the flush: enqueued and finished before the profiler starts, so it is never a
// range), then `work` (one iteration's launches) between the range profiler's start and stop,
// then `synchronize` (waits for the work). The CUDA context current on this thread is profiled.
// Never throws: a failure is `unavailable` with its reason.
[[nodiscard]] counter_pass_outcome run_counter_pass(const counter_pass_request& request,
                                                    const std::function<void()>& prepare,
                                                    const std::function<void()>& work,
                                                    const std::function<void()>& synchronize);

} // namespace kerntime::detail
