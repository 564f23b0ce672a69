#include "cli/list_command.hpp"

#include <fmt/format.h>

#include <bit>
#include <cstdint>

#include "cli/output_paths.hpp"
#include "cli/state_selection.hpp"
#include "kerntime/report.hpp"
#include "result/message_words.hpp"
#include "supervise/exit_codes.hpp"
#include "supervise/plan_listing.hpp"

namespace kerntime::detail {
namespace {

std::string axis_values_text(const axis& a) {
  std::vector<std::string> values;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a.power_of_two()) {
      values.push_back(fmt::format(
          "2^{} = {}", std::countr_zero(static_cast<std::uint64_t>(a.ints()[i])), a.ints()[i]));
    } else {
      values.push_back(a.value_text(i));
    }
  }
  std::string text;
  for (const auto& v : values) {
    text += text.empty() ? v : ", " + v;
  }
  return text;
}

} // namespace

int list_states(const state_plan& plan, const std::optional<shard_spec>& shard, std::ostream& out) {
  const auto indices = selected_indices(plan, shard);
  std::vector<bool> selected(plan.states.size(), false);
  for (const auto i : indices) {
    selected[i] = true;
  }
  for (const auto& b : plan.benchmarks) {
    out << b.registered->name() << '\n';
    for (const auto& a : b.axes) {
      out << fmt::format("  axis {} ({}{}): {}\n", a.name, to_string(a.kind()),
                         a.power_of_two() ? ", powers of two" : "", axis_values_text(a));
    }
    for (std::size_t i = 0; i < plan.states.size(); ++i) {
      if (selected[i] && plan.states[i].registered == b.registered) {
        out << "  state " << plan.states[i].name << '\n';
      }
    }
  }
  if (shard) {
    out << fmt::format(
        "{}, {}; shard {}/{} holds {}\n", counted(plan.benchmarks.size(), "benchmark"),
        counted(plan.states.size(), "state"), shard->index, shard->count, indices.size());
  } else {
    out << fmt::format("{}, {}\n", counted(plan.benchmarks.size(), "benchmark"),
                       counted(plan.states.size(), "state"));
  }
  return exit_ok;
}

int list_plan_json(const state_plan& plan, const std::optional<shard_spec>& shard,
                   const std::string& path, std::ostream& out) {
  plan_listing listing;
  listing.kerntime_version = KERNTIME_VERSION;
  listing.shard = shard;
  listing.plan_states = plan.states.size();
  for (const auto i : selected_indices(plan, shard)) {
    const auto& s = plan.states[i];
    listing.states.push_back({i, s.name, s.registered->name()});
  }
  if (path.empty() || path == "-") {
    out << plan_to_json(listing);
  } else {
    check_output_paths({{"--json", path}});
    write_file_atomically(path, [&](std::ostream& file) { file << plan_to_json(listing); });
  }
  return exit_ok;
}

} // namespace kerntime::detail
