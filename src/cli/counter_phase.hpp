#pragma once
// `kerntime run --counters` in two phases: every state is timed first, exactly as without
// counters, then every state that measured is run again for its counter pass alone
// (protocol.counters_only), and each timed result takes its counters. A counter pass therefore
// never runs between two other states' timing: on the H200 a state's time depended on the state
// before it in the same worker by up to 9 %, and a pass between them changed that history
// (docs/counters.md).

#include <optional>
#include <string_view>
#include <vector>

#include "kerntime/protocol.hpp"
#include "kerntime/report.hpp"

namespace kerntime::detail {

// Tells a worker process which phase it serves ("timing" or "counters").
inline constexpr const char* counter_phase_variable = "KERNTIME_COUNTER_PHASE";

enum class counter_phase { timing, counters };
[[nodiscard]] std::string_view to_string(counter_phase phase);
[[nodiscard]] std::optional<counter_phase> parse_counter_phase(std::string_view text);

// The protocol of one phase: timing without counters; counters alone.
[[nodiscard]] protocol protocol_for_phase(const protocol& p, counter_phase phase);

// Each ok timed run takes the counters of the counted run of its plan index, their derived values
// recomputed with the timed durations; a counted run that failed or is missing leaves the block
// unavailable with why. The timed runs' protocol records the counters asked for.
void merge_counter_phase(std::vector<benchmark_run>& timed,
                         const std::vector<benchmark_run>& counted, const protocol& asked);

} // namespace kerntime::detail
