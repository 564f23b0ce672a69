#include "cli/state_plan.hpp"

#include <algorithm>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kerntime::detail {
namespace {

// Every combination of axis values; the last axis varies fastest, as nested loops read.
std::vector<planned_state> expand(const benchmark& b, const std::vector<axis>& axes) {
  std::vector<planned_state> states;
  std::vector<std::size_t> index(axes.size(), 0);
  while (true) {
    planned_state s;
    s.registered = &b;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      s.values.emplace_back(axes[a].name, axes[a].value(index[a]));
      s.axis_texts.emplace_back(axes[a].name, axes[a].value_text(index[a]));
    }
    s.name = make_state_name(b.name(), s.axis_texts);
    states.push_back(std::move(s));
    std::size_t a = axes.size();
    while (a > 0) {
      --a;
      if (++index[a] < axes[a].size()) {
        break;
      }
      index[a] = 0;
      if (a == 0) {
        return states;
      }
    }
    if (axes.empty()) {
      return states;
    }
  }
}

std::regex compile_filter(const std::string& filter) {
  try {
    return std::regex(filter, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw invalid_argument(fmt::format(
        "invalid --filter regex '{}': {}; use an ECMAScript regex such as 'gemm|copy' and escape "
        "special characters with '\\'",
        filter, e.what()));
  }
}

} // namespace

state_plan plan_states(const benchmark_registry& registry,
                       const std::vector<axis_override>& overrides,
                       const std::optional<std::string>& filter) {
  std::set<std::string> seen;
  for (const auto& o : overrides) {
    if (!seen.insert(o.axis_name).second) {
      throw invalid_argument(fmt::format(
          "axis '{}' is overridden twice (-a {}); give all its values in one -a, e.g. -a {}=[A,B]",
          o.axis_name, o.spec, o.axis_name));
    }
    const auto& all = registry.benchmarks();
    const bool known = std::any_of(all.begin(), all.end(), [&](const auto& b) {
      return std::any_of(b->axes().begin(), b->axes().end(),
                         [&](const axis& a) { return a.name == o.axis_name; });
    });
    if (!known) {
      throw invalid_argument(fmt::format(
          "unknown axis '{}' in '-a {}': no benchmark has it; `kerntime list` shows the axes",
          o.axis_name, o.spec));
    }
  }

  const std::optional<std::regex> pattern =
      filter ? std::optional(compile_filter(*filter)) : std::nullopt;

  state_plan plan;
  for (const auto& b : registry.benchmarks()) {
    planned_benchmark pb;
    pb.registered = b.get();
    pb.axes = b->axes();
    for (auto& a : pb.axes) {
      for (const auto& o : overrides) {
        if (o.axis_name == a.name) {
          a = apply_axis_override(a, o);
        }
      }
    }
    bool any = false;
    for (auto& s : expand(*b, pb.axes)) {
      if (!pattern || std::regex_search(s.name, *pattern)) {
        plan.states.push_back(std::move(s));
        any = true;
      }
    }
    if (any) {
      plan.benchmarks.push_back(std::move(pb));
    }
  }
  if (plan.states.empty()) {
    if (registry.benchmarks().empty()) {
      throw invalid_argument("no benchmark is registered; register one with KERNTIME_BENCHMARK "
                             "and link it into this program");
    }
    throw invalid_argument(fmt::format(
        "no benchmark state matches --filter '{}'; `kerntime list` shows the state names",
        filter.value_or("")));
  }
  return plan;
}

} // namespace kerntime::detail
