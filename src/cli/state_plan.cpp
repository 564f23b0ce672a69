#include "cli/state_plan.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/input_text.hpp"
#include "cli/name_pattern.hpp"

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

// The most states one invocation expands to: far beyond a real suite, and well before memory
// runs out (10 million states took 7 GB, then bad_alloc).
constexpr std::uint64_t max_states = 100'000;

// The number of states of a benchmark: the product of its axes' value counts (a double, so
// that even 10,000^8 is a number to show).
double state_count(const std::vector<axis>& axes) {
  double count = 1;
  for (const auto& a : axes) {
    count *= static_cast<double>(a.size());
  }
  return count;
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

  const std::optional<name_pattern> pattern =
      filter ? std::optional<name_pattern>(std::in_place, *filter, "--filter") : std::nullopt;

  std::vector<planned_benchmark> candidates;
  double total = 0;
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
    total += state_count(pb.axes);
    candidates.push_back(std::move(pb));
  }
  if (total > static_cast<double>(max_states)) {
    throw invalid_argument(fmt::format(
        "the axes expand to {} states (the product of their value counts), more than the {} one "
        "run may hold; narrow an axis with -a or split the run with --filter",
        total < 1e15 ? fmt::format("{:.0f}", total) : fmt::format("{:.3g}", total), max_states));
  }

  state_plan plan;
  for (auto& pb : candidates) {
    const benchmark* b = pb.registered;
    bool any = false;
    for (auto& s : expand(*b, pb.axes)) {
      if (!pattern || pattern->finds(s.name)) {
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
    throw invalid_argument(
        fmt::format("no benchmark state matches --filter {}; `kerntime list` shows the state names",
                    quoted_input(filter.value_or(""))));
  }
  return plan;
}

} // namespace kerntime::detail
