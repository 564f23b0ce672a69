#pragma once
// The protocol's settings as the command line spells them, for `run`'s and `ab`'s flags and for
// the messages parse_protocol writes about them; the flags of a trial both commands take.

#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "kerntime/protocol.hpp"

namespace kerntime::detail {

inline constexpr setting_names protocol_flag_names{.warmup = "--warmup",
                                                   .trials = "--trials",
                                                   .stop_at_ci = "--stop-at-ci",
                                                   .max_trials = "--max-trials",
                                                   .max_time = "--max-time",
                                                   .repeats = "--repeat",
                                                   .input_sets = "--input-sets",
                                                   .no_flush = "--no-flush",
                                                   .flush_bytes = "--flush-bytes",
                                                   .backend = "--backend",
                                                   .metric = "--metric",
                                                   .no_telemetry = "--no-telemetry",
                                                   .throttle_threshold = "--throttle-threshold",
                                                   .discard_throttled = "--discard-throttled",
                                                   .counters = "--counters",
                                                   .metrics = "--metrics",
                                                   .assign = " "};

// A flag's name as CLI11 takes it (protocol_flag_names holds string_views).
[[nodiscard]] std::string flag(std::string_view name);

// The flags of one trial's protocol that `run` and `ab` both take: --warmup, --repeat,
// --input-sets, --no-flush, --flush-bytes, --backend, --metric, --no-telemetry,
// --throttle-threshold and --discard-throttled. `ab` hands them to its workers' `run` as typed, so
// one definition serves both.
struct trial_protocol_flags {
  protocol_request protocol;
  std::string warmup = std::to_string(protocol_request{}.warmup); // a count, or "auto"
  long long flush_bytes = 0;                                      // counts only when given
};

void add_trial_protocol_options(CLI::App& app, trial_protocol_flags& flags);

// After parsing: what CLI11 holds as text or as "given or not" (--warmup, --flush-bytes) read into
// flags.protocol. Throws kerntime::invalid_argument naming the flag for a bad --warmup.
void read_trial_protocol(const CLI::App& app, trial_protocol_flags& flags);

} // namespace kerntime::detail
