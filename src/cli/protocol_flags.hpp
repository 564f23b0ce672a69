#pragma once
// The protocol's settings as the command line spells them, for `run`'s and `ab`'s flags and for
// the messages parse_protocol writes about them.

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

} // namespace kerntime::detail
