#pragma once
// The measurement protocol: how many iterations run, how the cache is prepared and which timer
// is used. Every field has the documented default of docs/protocol.md.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kerntime {

// Which timer the caller asks for. `automatic` prefers CUPTI and falls back to CUDA events
// (with a warning) only when CUPTI is unavailable; `cupti` fails instead of falling back.
enum class backend_request { automatic, cupti, events };

// The per-iteration quantity the headline latency is the median of.
// span: first GPU record start to last GPU record end; busy: sum of record durations.
enum class headline_metric { span, busy };

// How each iteration's work reaches the GPU. stream: the work function is called every iteration
// and launches its kernels one by one. graph: the work is captured once per input set into a
// CUDA graph, and every iteration launches that graph (how CUDA-graph deployments run an op);
// the L2 flush stays outside the graph (docs/protocol.md, "CUDA-graph mode").
enum class launch_mode { stream, graph };

// Every field has a default, so a designated initializer names only what differs:
// `protocol{.trials = 10, .input_sets = 1}`.
struct protocol {
  int warmup = 10;          // untimed iterations before the timer is attached (JIT, autotuning)
  bool warmup_auto = false; // then keep warming up until the iteration time settles (at least
                            // `warmup` iterations first; docs/protocol.md gives the rule)
  int trials = 5;           // independent groups of iterations; with stop_at_ci, the minimum
  // Keep adding trials until the 95 % interval of the median is within ±stop_at_ci % of it,
  // bounded by max_trials and max_time_s. Unset: exactly `trials` trials (the default).
  std::optional<double> stop_at_ci{};
  int max_trials = 100;        // with stop_at_ci: the most trials (kept ones) it may take
  double max_time_s = 30;      // with stop_at_ci: no trial starts after this much wall time
  int repeats = 50;            // iterations per trial
  bool flush_l2 = true;        // flush L2 before every iteration, warmup included
  std::size_t flush_bytes = 0; // 0: four times the device's L2 size
  int input_sets = 3;          // the work rotates over input sets 0..input_sets-1
  backend_request backend = backend_request::automatic;
  headline_metric metric = headline_metric::span;
  bool telemetry = true;            // NVML and on-GPU clock readings per trial
  double throttle_threshold = 0.90; // a trial below this fraction of max SM clock is throttled
  bool discard_throttled = false;   // re-run throttled trials (bounded)
  launch_mode launch = launch_mode::stream;
  // After the timing trials, a counter pass: one flushed iteration profiled with CUPTI's range
  // profiler, every kernel's hardware counters attributed to the breakdown (docs/counters.md).
  // It never changes the timing result. `metrics`: CUPTI metric names of this chip; empty: the
  // default set (DRAM bytes read and written, DRAM %, L2 hit rate, tensor-pipe %).
  bool counters = false;
  std::vector<std::string> metrics{};
  // With counters: no timing trials at all, only the warm-up, one traced iteration and the
  // counter pass; the result carries the counters block and no latency. `kerntime run
  // --counters` times every state first and profiles them in this mode afterwards, so a state's
  // counter pass never runs between two other states' timing.
  bool counters_only = false;
};

// How the people who set the protocol name each setting, so a message names what they typed:
// C++ and Python callers see the field names (the defaults), the command line its flags.
struct setting_names {
  std::string_view warmup = "warmup";
  std::string_view trials = "trials";
  std::string_view stop_at_ci = "stop_at_ci";
  std::string_view max_trials = "max_trials";
  std::string_view max_time = "max_time";
  std::string_view repeats = "repeats";
  std::string_view input_sets = "input_sets";
  std::string_view no_flush = "flush_l2=false";
  std::string_view flush_bytes = "flush_bytes";
  std::string_view backend = "backend";
  std::string_view metric = "metric";
  std::string_view no_telemetry = "telemetry=false";
  std::string_view throttle_threshold = "throttle_threshold";
  std::string_view discard_throttled = "discard_throttled";
  std::string_view counters = "counters";
  std::string_view metrics = "metrics";
  std::string_view assign = "="; // between a name and a value in an example: "repeats=50"
};

// The protocol as a person gives it: counts as typed, the timer and the metric by name, the
// flush size only when given. parse_protocol checks it and builds the protocol: the command line
// and the Python module both call it, so every check and message exists once.
struct protocol_request {
  long long warmup = protocol{}.warmup;
  bool warmup_auto = false;
  long long trials = protocol{}.trials;
  std::optional<double> stop_at_ci;    // percent, in (0, 100)
  std::optional<long long> max_trials; // given: only with stop_at_ci
  std::optional<double> max_time_s;    // given: only with stop_at_ci
  long long repeats = protocol{}.repeats;
  long long input_sets = protocol{}.input_sets;
  bool flush_l2 = true;
  std::optional<long long> flush_bytes; // given: at least 1, and only with the flush on
  std::string backend = "auto";         // auto, cupti or events
  std::string metric = "span";          // span or busy
  bool telemetry = true;
  double throttle_threshold = protocol{}.throttle_threshold;
  bool discard_throttled = false; // needs telemetry, which detects throttling
  bool cuda_graph = false;        // launch_mode::graph
  bool counters = false;
  std::vector<std::string> metrics; // given: counters on, these metrics instead of the default
};

// Throws kerntime::invalid_argument with one line naming the setting (as `names` spell it), the
// value and the fix.
[[nodiscard]] protocol parse_protocol(const protocol_request& request,
                                      const setting_names& names = {});

// An empty result means valid; otherwise the message parse_protocol would give, naming the field.
[[nodiscard]] std::optional<std::string> validate(const protocol& p);

[[nodiscard]] std::string_view to_string(backend_request b);
[[nodiscard]] std::string_view to_string(headline_metric m);
[[nodiscard]] std::string_view to_string(launch_mode m);
[[nodiscard]] std::optional<backend_request> parse_backend_request(std::string_view text);
[[nodiscard]] std::optional<headline_metric> parse_headline_metric(std::string_view text);
[[nodiscard]] std::optional<launch_mode> parse_launch_mode(std::string_view text);

} // namespace kerntime
