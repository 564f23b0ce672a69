#pragma once
// The last stage of a measurement: the samples a timer handed on become a measurement_result with
// its statistics (headline, span, busy, per trial). Pure, so reports and tests see the same
// numbers.

#include "kerntime/protocol.hpp"
#include "kerntime/result.hpp"
#include "result/timed_trials.hpp"

namespace kerntime::detail {

// Sets protocol_used, the statistics and latency_ns, and moves the trials, breakdown, trace,
// flush time and warnings in. The caller adds what the runner knows (device, backend, telemetry).
[[nodiscard]] measurement_result summarise(timed_trials timed, const protocol& p);

} // namespace kerntime::detail
