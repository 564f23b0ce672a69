#pragma once
// Which states a command covers: every registered benchmark, its axes with the `-a` overrides
// applied, expanded into states and kept when the `--filter` regex finds their name.

#include <optional>
#include <string>
#include <vector>

#include "cli/axis_override.hpp"
#include "kerntime/benchmark.hpp"
#include "kerntime/report.hpp"

namespace kerntime::detail {

struct planned_benchmark {
  const benchmark* registered = nullptr;
  std::vector<axis> axes; // after overrides
};

// One state: its benchmark, its axis values (typed, and as text) and its name, built once here.
struct planned_state {
  const benchmark* registered = nullptr;
  std::vector<std::pair<std::string, axis_value>> values;
  std::vector<std::pair<std::string, std::string>> axis_texts;
  std::string name;
  std::optional<launch_mode> launch; // set by --cuda-graph=both (launch_choice.hpp)
};

struct state_plan {
  std::vector<planned_benchmark> benchmarks; // those with at least one selected state
  std::vector<planned_state> states;
};

// Throws kerntime::invalid_argument for an axis no benchmark has, an axis given twice, an invalid
// regex, or a filter that matches no state.
[[nodiscard]] state_plan plan_states(const benchmark_registry& registry,
                                     const std::vector<axis_override>& overrides,
                                     const std::optional<std::string>& filter);

} // namespace kerntime::detail
