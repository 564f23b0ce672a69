#pragma once
// The protocol's settings as the command line spells them, for `run`'s and `ab`'s flags and for
// the messages parse_protocol writes about them; the flag CLI11 can only hold as text.

#include <string>

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

// --warmup as typed: a count of iterations, or auto. Throws kerntime::invalid_argument naming the
// flag and both forms for anything else.
void read_warmup_flag(const std::string& text, protocol_request& request);

} // namespace kerntime::detail
