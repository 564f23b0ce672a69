#include "report/detail/benchmark_groups.hpp"

#include <algorithm>
#include <iterator>

namespace kerntime::detail {

std::vector<benchmark_group> group_by_benchmark(std::span<const benchmark_run> runs) {
  std::vector<benchmark_group> groups;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const benchmark_group& g) { return g.name == runs[i].benchmark; });
    if (it == groups.end()) {
      groups.push_back({runs[i].benchmark, {}, {}});
      it = std::prev(groups.end());
    }
    it->runs.push_back(i);
    for (const auto& axis : runs[i].axes) {
      if (std::find(it->axes.begin(), it->axes.end(), axis.first) == it->axes.end()) {
        it->axes.push_back(axis.first);
      }
    }
  }
  return groups;
}

optional_columns columns_of(const benchmark_group& group, std::span<const benchmark_run> runs) {
  optional_columns c;
  const bool launch_axis =
      std::find(group.axes.begin(), group.axes.end(), "launch") != group.axes.end();
  for (const auto i : group.runs) {
    const auto& run = runs[i];
    c.flops = c.flops || run.flops.has_value();
    c.bytes = c.bytes || run.bytes.has_value();
    c.sol = c.sol || run.sol.has_value();
    c.achievable = c.achievable || (run.sol && run.sol->achievable);
    c.energy = c.energy || (run.result && run.result->energy.available);
    c.preparation = c.preparation || (run.result && run.result->preparation_spread);
    c.launch = c.launch || (!launch_axis && run.result &&
                            run.result->protocol_used.launch == launch_mode::graph);
  }
  return c;
}

} // namespace kerntime::detail
