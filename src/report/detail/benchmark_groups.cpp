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

} // namespace kerntime::detail
