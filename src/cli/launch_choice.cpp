#include "cli/launch_choice.hpp"

#include <fmt/format.h>

#include "cli/input_text.hpp"
#include "kerntime/report.hpp"

namespace kerntime::detail {

launch_choice parse_launch_choice(std::string_view value) {
  if (value.empty() || value == "on") {
    return launch_choice::graph;
  }
  if (value == "off") {
    return launch_choice::stream;
  }
  if (value == "both") {
    return launch_choice::both;
  }
  throw invalid_argument(fmt::format("--cuda-graph takes on, off or both (got {}); e.g. "
                                     "--cuda-graph or --cuda-graph=both",
                                     quoted_input(value)));
}

state_plan split_by_launch(const state_plan& plan) {
  for (const auto& b : plan.benchmarks) {
    for (const auto& a : b.axes) {
      if (a.name == launch_axis_name) {
        throw invalid_argument(fmt::format(
            "benchmark '{}' has an axis named {}, which --cuda-graph=both adds to every state; "
            "rename the axis or run --cuda-graph and --cuda-graph=off separately",
            b.registered->name(), launch_axis_name));
      }
    }
  }
  state_plan split;
  for (auto b : plan.benchmarks) {
    b.axes.push_back({std::string(launch_axis_name), string_axis_values{{"stream", "graph"}}});
    split.benchmarks.push_back(std::move(b));
  }
  for (const auto& s : plan.states) {
    for (const launch_mode mode : {launch_mode::stream, launch_mode::graph}) {
      planned_state launched = s;
      const std::string value(to_string(mode));
      launched.values.emplace_back(std::string(launch_axis_name), value);
      launched.axis_texts.emplace_back(std::string(launch_axis_name), value);
      launched.name = make_state_name(s.registered->name(), launched.axis_texts);
      launched.launch = mode;
      split.states.push_back(std::move(launched));
    }
  }
  return split;
}

} // namespace kerntime::detail
