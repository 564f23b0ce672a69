#pragma once
// The measurement protocol: how many iterations run, how the cache is prepared and which timer
// is used. Every field has the documented default of docs/protocol.md.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kerntime {

// Which timer the caller asks for. `automatic` prefers CUPTI and falls back to CUDA events
// (with a warning) only when CUPTI is unavailable; `cupti` fails instead of falling back.
enum class backend_request { automatic, cupti, events };

// The per-iteration quantity the headline latency is the median of.
// span: first GPU record start to last GPU record end; busy: sum of record durations.
enum class headline_metric { span, busy };

struct protocol {
  int warmup = 10;             // untimed iterations before the timer is attached (JIT, autotuning)
  int trials = 5;              // independent groups of iterations
  int repeats = 50;            // iterations per trial
  bool flush_l2 = true;        // flush L2 before every iteration, warmup included
  std::size_t flush_bytes = 0; // 0: twice the device's L2 size
  int input_sets = 3;          // the work rotates over input sets 0..input_sets-1
  backend_request backend = backend_request::automatic;
  headline_metric metric = headline_metric::span;
  bool telemetry = true;            // NVML and on-GPU clock readings per trial
  double throttle_threshold = 0.90; // a trial below this fraction of max SM clock is throttled
  bool discard_throttled = false;   // re-run throttled trials (bounded)
};

// An empty result means valid; otherwise a message naming the field and the fix.
[[nodiscard]] std::optional<std::string> validate(const protocol& p);

[[nodiscard]] std::string_view to_string(backend_request b);
[[nodiscard]] std::string_view to_string(headline_metric m);
[[nodiscard]] std::optional<backend_request> parse_backend_request(std::string_view text);
[[nodiscard]] std::optional<headline_metric> parse_headline_metric(std::string_view text);

} // namespace kerntime
