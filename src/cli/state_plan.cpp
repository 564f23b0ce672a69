#include "cli/state_plan.hpp"

#include <algorithm>
#include <functional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/input_text.hpp"
#include "cli/name_pattern.hpp"

namespace kerntime::detail {
namespace {

// Every combination of axis values whose state name `keep` accepts, appended to `states`; the
// last axis varies fastest, as nested loops read. A state is made whole only when kept, so a
// filter over a wide grid costs a name per combination, not a state. Stops once `states` holds
// more than `most`.
void expand(const benchmark& b, const std::vector<axis>& axes,
            const std::function<bool(std::string_view)>& keep, std::size_t most,
            std::vector<planned_state>& states) {
  std::vector<std::size_t> index(axes.size(), 0);
  std::vector<std::pair<std::string, std::string>> texts(axes.size());
  while (true) {
    for (std::size_t a = 0; a < axes.size(); ++a) {
      texts[a] = {axes[a].name, axes[a].value_text(index[a])};
    }
    std::string name = make_state_name(b.name(), texts);
    if (keep(name)) {
      planned_state s;
      s.registered = &b;
      for (std::size_t a = 0; a < axes.size(); ++a) {
        s.values.emplace_back(axes[a].name, axes[a].value(index[a]));
      }
      s.axis_texts = texts;
      s.name = std::move(name);
      states.push_back(std::move(s));
      if (states.size() > most) {
        return;
      }
    }
    std::size_t a = axes.size();
    while (a > 0) {
      --a;
      if (++index[a] < axes[a].size()) {
        break;
      }
      index[a] = 0;
      if (a == 0) {
        return;
      }
    }
    if (axes.empty()) {
      return;
    }
  }
}

// The most states one invocation runs or lists: far beyond a real suite, and well before memory
// runs out (10 million states took 7 GB, then bad_alloc). It counts the states --filter keeps.
constexpr std::uint64_t max_states = 100'000;
// The most combinations a --filter is tried on: each costs a state name and a match (about a
// microsecond: a million took 0.4 s on the 2-core development machine).
constexpr std::uint64_t max_combinations = 1'000'000;

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
  const auto count_text = [](double count) {
    return count < 1e15 ? fmt::format("{:.0f}", count) : fmt::format("{:.3g}", count);
  };
  if (!pattern && total > static_cast<double>(max_states)) {
    throw invalid_argument(fmt::format(
        "the axes expand to {} states (the product of their value counts), more than the {} one "
        "run may hold; narrow an axis with -a{}",
        count_text(total), max_states,
        total <= static_cast<double>(max_combinations) ? ", or select states with --filter" : ""));
  }
  if (total > static_cast<double>(max_combinations)) {
    throw invalid_argument(fmt::format(
        "the axes expand to {} combinations, more than the {} --filter is tried on; narrow an "
        "axis with -a",
        count_text(total), max_combinations));
  }

  state_plan plan;
  const std::function<bool(std::string_view)> keep = [&](std::string_view name) {
    return !pattern || pattern->finds(name);
  };
  for (auto& pb : candidates) {
    const std::size_t before = plan.states.size();
    expand(*pb.registered, pb.axes, keep, max_states, plan.states);
    if (plan.states.size() > max_states) {
      throw invalid_argument(fmt::format(
          "--filter {} selects more than {} of the {} states the axes expand to, more than one "
          "run may hold; narrow the --filter or an axis with -a",
          quoted_input(filter.value_or("")), max_states, count_text(total)));
    }
    if (plan.states.size() > before) {
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
