#pragma once
// `kerntime run --cuda-graph[=on|off|both]`: how the run launches each state's work. With both,
// every state is measured twice, as two states of the plan named STATE/launch=stream and
// STATE/launch=graph: `launch` becomes an axis of the run, so every report (markdown, JSON, CSV,
// JUnit, HTML) shows the two numbers side by side as rows of one table, and compare matches each
// with the same launch of the baseline.

#include <string_view>

#include "cli/state_plan.hpp"

namespace kerntime::detail {

enum class launch_choice { stream, graph, both };

// The axis a both-ways run adds to every state.
inline constexpr std::string_view launch_axis_name = "launch";

// The flag's value: empty (the flag alone) or "on" is graph, "off" stream, "both" both. Throws
// kerntime::invalid_argument naming the values it takes.
[[nodiscard]] launch_choice parse_launch_choice(std::string_view value);

// Every state of `plan` twice, stream launch first, each with the `launch` axis appended to its
// axes and name. Throws kerntime::invalid_argument when a benchmark has an axis named launch.
[[nodiscard]] state_plan split_by_launch(const state_plan& plan);

} // namespace kerntime::detail
