#include "counters/metric_plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <string_view>
#include <utility>

#include "counters/host_object.hpp"
#include "kerntime/counters.hpp"

namespace kerntime::detail {

bool metric_plan::all_known() const {
  return std::all_of(metrics.begin(), metrics.end(), [](const auto& m) { return m.known; });
}

const std::vector<std::string>& default_metrics() {
  static const std::vector<std::string> names = {
      counter_metrics::dram_read,   counter_metrics::dram_write,  counter_metrics::dram_percent,
      counter_metrics::l2_hit_rate, counter_metrics::tensor_pipe,
  };
  return names;
}

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The chip's full metric names nearest to an unknown one: the three nearest base metrics (by the
// part before the first '.'; or the base itself when only the suffix is wrong), each with its
// suffix nearest to the one asked for.
std::vector<std::string> close_names(host_object& object, std::string_view name) {
  constexpr std::size_t shown = 3;
  const auto dot = name.find('.');
  const std::string_view stem = name.substr(0, dot);
  const std::string_view suffix = dot == std::string_view::npos ? "" : name.substr(dot);
  auto bases = object.base_metrics();
  const auto exact = std::find_if(bases.begin(), bases.end(),
                                  [&](const auto& base) { return base.first == stem; });
  const bool only_suffix_wrong = exact != bases.end();
  if (only_suffix_wrong) {
    bases = {*exact};
  } else {
    const auto middle = bases.begin() + static_cast<std::ptrdiff_t>(std::min(shown, bases.size()));
    std::partial_sort(bases.begin(), middle, bases.end(), [&](const auto& a, const auto& b) {
      return edit_distance(stem, a.first) < edit_distance(stem, b.first);
    });
    bases.erase(middle, bases.end());
  }
  std::vector<std::string> names;
  for (const auto& [base, type] : bases) {
    auto subs = object.sub_metrics(base, type);
    if (only_suffix_wrong) { // the nearest suffixes of that one base
      std::sort(subs.begin(), subs.end(), [&](std::string_view a, std::string_view b) {
        return edit_distance(suffix, a) < edit_distance(suffix, b);
      });
      for (std::size_t i = 0; i < std::min(shown, subs.size()); ++i) {
        names.push_back(fmt::format("{}{}", base, subs[i]));
      }
    } else if (!subs.empty()) {
      const auto nearest = std::min_element(subs.begin(), subs.end(), [&](auto a, auto b) {
        return edit_distance(suffix, a) < edit_distance(suffix, b);
      });
      names.push_back(fmt::format("{}{}", base, *nearest));
    }
  }
  return names;
}

} // namespace

metric_plan plan_metrics(const profiler_host_library& host, const std::string& chip,
                         const std::vector<std::string>& names) {
  if (const auto chips = supported_chips(host);
      std::find(chips.begin(), chips.end(), chip) == chips.end()) {
    throw invalid_argument(fmt::format("chip \"{}\" is not one the CUPTI Profiler Host API knows "
                                       "(it knows {})",
                                       chip, fmt::join(chips, ", ")));
  }
  metric_plan plan{chip, {}, 0};
  std::vector<const char*> known;
  for (const auto& name : names) {
    // A fresh object per name: a refused name fails the whole call, and the object's state after
    // a refusal is not documented.
    metric_check check{name, host_object(host, chip).add_metrics({name.c_str()}), {}};
    if (check.known) {
      known.push_back(name.c_str());
    } else {
      host_object object(host, chip);
      check.close_names = close_names(object, name);
    }
    plan.metrics.push_back(std::move(check));
  }
  if (!known.empty()) {
    host_object object(host, chip);
    if (!object.add_metrics(known)) {
      throw counters_unavailable(
          fmt::format("chip {} accepts each of {} alone but refuses them together", chip,
                      fmt::join(known, ", ")));
    }
    plan.passes = object.passes(object.config_image());
  }
  return plan;
}

namespace {

std::string unknown_metrics_message(const metric_plan& plan) {
  std::string listed;
  for (const auto& check : plan.metrics) {
    if (check.known) {
      continue;
    }
    listed += fmt::format("{}\"{}\"", listed.empty() ? "" : "; ", check.name);
    if (!check.close_names.empty()) {
      listed += fmt::format(" (closest: {})", fmt::join(check.close_names, ", "));
    }
  }
  return fmt::format("not a metric of chip {}: {}. Metric names differ across chips: --metrics "
                     "takes names of this chip, a base metric with its roll-up "
                     "(dram__bytes_read.sum)",
                     plan.chip, listed);
}

} // namespace

unknown_metrics::unknown_metrics(const metric_plan& plan)
    : invalid_argument(unknown_metrics_message(plan)), chip_(plan.chip) {
  std::copy_if(plan.metrics.begin(), plan.metrics.end(), std::back_inserter(unknown_),
               [](const auto& check) { return !check.known; });
}

metric_plan check_metrics(const profiler_host_library& host, const std::string& chip,
                          const std::vector<std::string>& names) {
  auto plan = plan_metrics(host, chip, names);
  if (!plan.all_known()) {
    throw unknown_metrics(plan);
  }
  return plan;
}

} // namespace kerntime::detail
