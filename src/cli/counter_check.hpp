#pragma once
// --counters before the run: the metric names checked against the GPU's chip with the CUPTI
// Profiler Host API, so an unknown name stops the run before any state is measured (exit 2),
// and the passes each kernel will be replayed are said up front.

#include <optional>
#include <ostream>
#include <string>

#include "kerntime/protocol.hpp"

namespace kerntime::detail {

// Checks p.metrics (or the default set) on the first device the run measures (`devices` as
// --devices gives them; none: the current device). Unknown names throw unknown_metrics, an
// invalid_argument naming each with the chip's closest names. Prints the chip, the metrics' count
// and the passes to `err`; where counters cannot be had here, a warning with the reason (timing
// goes on, and every result says the same).
void announce_counters(const protocol& p, const std::optional<std::string>& devices,
                       std::ostream& err);

} // namespace kerntime::detail
