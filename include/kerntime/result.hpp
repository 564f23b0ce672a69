#pragma once
// What a measurement returns: the headline, every sample, the statistics, the timer that ran and
// why, the per-kernel breakdown and every warning. Times are in nanoseconds.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kerntime/counters.hpp"
#include "kerntime/protocol.hpp"
#include "kerntime/statistics.hpp"
#include "kerntime/telemetry.hpp"

namespace kerntime {

enum class timing_backend { cupti, events };
[[nodiscard]] std::string_view to_string(timing_backend b);
[[nodiscard]] std::optional<timing_backend> parse_timing_backend(std::string_view text);

// How kerntime held CUPTI: its own subscription, or the Activity API alone beside an idle
// torch.profiler that holds the subscription (docs/torch-profiler.md); none with CUDA events.
enum class cupti_mode { none, subscribed, shared_with_idle_torch_profiler };
[[nodiscard]] std::string_view to_string(cupti_mode m);
[[nodiscard]] std::optional<cupti_mode> parse_cupti_mode(std::string_view text);

// One measured iteration. With CUDA events span and busy are both the event interval.
struct iteration_sample {
  double span_ns = 0; // first GPU record start to last GPU record end
  double busy_ns = 0; // sum of GPU record durations (overlapping streams count twice)
};

struct trial_result {
  std::vector<iteration_sample> iterations;
  trial_telemetry telemetry;
};

// What kind of GPU activity a record was.
enum class activity_kind { kernel, memset, memcpy };
[[nodiscard]] std::string_view to_string(activity_kind k);
[[nodiscard]] std::optional<activity_kind> parse_activity_kind(std::string_view text);

// One row of the per-kernel breakdown: all records of one name and kind within an iteration.
struct kernel_summary {
  std::string name;
  activity_kind kind = activity_kind::kernel;
  double calls_per_iteration = 0; // equal in every iteration unless a warning says otherwise
  double mean_ns = 0;             // per iteration, summed over the calls
  double median_ns = 0;
  double share = 0; // mean_ns over the mean busy time of an iteration
};

// One GPU record of the traced trial, for the Chrome/Perfetto trace.
struct trace_record {
  std::string name;
  activity_kind kind = activity_kind::kernel;
  int iteration = 0; // within the trial
  std::uint32_t stream = 0;
  double start_ns = 0; // relative to the trial's first record
  double end_ns = 0;
};

// Why the measured trials ended.
enum class stop_reason {
  trial_count,      // the fixed protocol: `trials` trials ran
  interval_reached, // stop_at_ci: the interval of the median got within the target
  max_trials,       // stop_at_ci: the trial bound came first
  max_time,         // stop_at_ci: the time bound came first
  timer_resolution, // stop_at_ci: the timer's step alone is wider than the target (more trials
                    // cannot narrow it)
};
[[nodiscard]] std::string_view to_string(stop_reason r);
[[nodiscard]] std::optional<stop_reason> parse_stop_reason(std::string_view text);

// Which stopping rule ran, what it took and the precision it reached: every output records it.
struct stopping_summary {
  int warmup_iterations = 0;  // untimed iterations run (warmup_auto: until the time settled)
  bool warmup_settled = true; // warmup_auto: the rule was met before its bound (always true
                              // for a fixed warm-up)
  int trials = 0;             // kept trials
  stop_reason reason = stop_reason::trial_count;
  // 95 % distribution-free interval of the median trial median (docs/statistics.md), widened by
  // the timer's step on each side; none with fewer than 6 trials. half_width: its farther end
  // from that median, as a fraction of it.
  std::optional<confidence_interval> median_interval;
  std::optional<double> half_width;
};

// What the work did beside running on the GPU, and how the engine queued it (docs/queue.md).
struct work_behaviour {
  // Measured iterations that called an API that makes the host wait for the GPU (stream, device or
  // event synchronize, a synchronous copy to or from the host), and those calls by name. CUPTI
  // only: CUDA events see no API calls.
  int synchronizing_iterations = 0;
  std::vector<std::string> synchronizing_calls;
  // Measured iterations whose first GPU record started later than the end of the GPU work before
  // it (its flush) by more than launch latency: the GPU waited for the host. `judged_iterations`
  // is 0 with CUDA events, which have no records to judge.
  int host_gap_iterations = 0;
  int judged_iterations = 0;
  double longest_host_gap_ns = 0;
  // Kernels a call on rotated inputs ran that a call on the same inputs did not (a copy into
  // static buffers, a re-capture, a re-tune). Empty with one input set or with CUDA events.
  std::vector<std::string> rotation_added_kernels;
  // Iterations queued behind one blocking kernel in the last trial; 0: no blocking kernel, the
  // work waits for the host. `queue_stalls`: times the host stopped queueing and the engine
  // released the queue early (the trial was run again).
  int queue_chunk_iterations = 0;
  int queue_stalls = 0;
  // Launches the launch queue took behind a blocking kernel at start-up (0: not measured).
  int launch_queue_depth = 0;
};

struct device_info {
  int ordinal = 0;
  std::string name{};
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessors = 0;
  std::size_t l2_bytes = 0;
  std::size_t memory_bytes = 0;
  // For the speed-of-light table (0 where not read, e.g. a file from an older kerntime).
  int peak_sm_clock_khz = 0;     // cudaDevAttrClockRate
  int memory_clock_khz = 0;      // cudaDevAttrMemoryClockRate
  int memory_bus_width_bits = 0; // cudaDevAttrGlobalMemoryBusWidth
  int driver_version = 0;        // as cudaDriverGetVersion reports it, e.g. 13000
  int runtime_version = 0;       // as cudaRuntimeGetVersion reports it
};

// Where the host wall time of a measurement went, in seconds, phase by phase in the order they
// ran: why a measurement takes longer than the GPU time it measured (docs/queue.md). `telemetry`
// is the part of `trials` spent reading the card around each trial; `counter_pass` the part of
// `detach` spent in the counter pass.
struct host_phases {
  double prepare = 0;      // flush buffer, telemetry, blocking kernel, queue probe, metric check
  double warmup = 0;       // the warm-up calls (and in graph mode the capture)
  double attach = 0;       // CUPTI loaded and attached (0 with CUDA events)
  double first_calls = 0;  // the discarded calls after attaching, and what is learnt from them
  double trials = 0;       // the measured trials, re-runs and telemetry included
  double telemetry = 0;    // of `trials`: NVML readings and the clock check around each trial
  double detach = 0;       // CUPTI flushed and detached, the counter pass included
  double counter_pass = 0; // of `detach`
  double summarise = 0;    // attribution and statistics
};

// The phases by name, in order: how JSON, Python and the docs spell them.
inline constexpr std::array<std::pair<std::string_view, double host_phases::*>, 9>
    host_phase_names = {{{"prepare", &host_phases::prepare},
                         {"warmup", &host_phases::warmup},
                         {"attach", &host_phases::attach},
                         {"first_calls", &host_phases::first_calls},
                         {"trials", &host_phases::trials},
                         {"telemetry", &host_phases::telemetry},
                         {"detach", &host_phases::detach},
                         {"counter_pass", &host_phases::counter_pass},
                         {"summarise", &host_phases::summarise}}};

struct measurement_result {
  protocol protocol_used;
  device_info device;
  timing_backend backend = timing_backend::cupti;
  std::string backend_reason; // why this timer ran (e.g. the CUPTI error that forced events)
  double latency_ns = 0;      // median of the headline metric over every measured iteration
  summary_statistics stats;   // of the headline metric
  // How CUPTI was held: kerntime's own subscription, or shared with an idle torch.profiler.
  cupti_mode cupti = cupti_mode::subscribed;
  summary_statistics span;
  summary_statistics busy;
  trial_statistics trials_summary; // per-trial means/medians of the headline metric
  stopping_summary stopping;
  std::vector<trial_result> trials;
  std::vector<kernel_summary> kernels; // empty with CUDA events, which see no kernels
  std::vector<trace_record> trace;     // the first measured trial's records of its first 10
                                       // iterations (CUPTI only; detail::traced_iterations)
  device_telemetry telemetry;
  energy_summary energy;     // from the trials' NVML energy readings
  counters_summary counters; // the counter pass after the trials (protocol.counters)
  std::vector<std::string> warnings;
  work_behaviour work;         // synchronization, host gaps, rotation, queueing
  double wall_seconds = 0;     // host wall time of the whole measurement, warmup included
  host_phases phases;          // where that wall time went
  std::size_t flush_bytes = 0; // the flush size actually used (0 when flush_l2 is off)
  // CUPTI only: the flush's median GPU time per iteration (outside every sample); 0 otherwise.
  double flush_median_ns = 0;
  // The timer's step, measured from what it reported: CUPTI's timestamps' common step (32 ns on
  // an H200), CUDA events' smallest step between durations; 0 when not known. Every interval
  // includes it (docs/statistics.md).
  double timer_resolution_ns = 0;
  // How many fresh preparations (inputs allocated, warm-up, timer attached) the trials came
  // from: 1 for a measurement, more for `kerntime run`'s states (each trial its own preparation
  // by default) and `kerntime ab`'s sides. With 2 or more, preparation_spread is the standard
  // deviation of the log of each preparation's time (the clipped mean of its readings of the
  // headline metric), as a fraction: how far this state moves from one preparation to the next
  // in one process, a floor under any comparison of it (docs/ab.md, "What moves a preparation").
  int preparations = 1;
  std::optional<double> preparation_spread{};
};

} // namespace kerntime
