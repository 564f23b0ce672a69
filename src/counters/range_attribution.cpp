#include "counters/range_attribution.hpp"

#include <algorithm>
#include <string>

#include "cupti/kernel_name.hpp"
#include "kerntime/counters.hpp"

namespace kerntime::detail {

namespace {

const std::string duration_metric = counter_metrics::range_duration;

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(),
                                                      suffix.data(), suffix.size()) == 0;
}

// The opening parenthesis of the trailing parameter list, or npos when the name has none.
std::size_t parameter_list_start(std::string_view name) {
  if (name.empty() || name.back() != ')') {
    return std::string_view::npos;
  }
  int depth = 0;
  for (std::size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') {
      ++depth;
    } else if (name[i] == '(' && --depth == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

} // namespace

std::string_view to_string(attribution_mismatch_kind k) {
  switch (k) {
  case attribution_mismatch_kind::range_without_kernel:
    return "range_without_kernel";
  case attribution_mismatch_kind::kernel_without_range:
    return "kernel_without_range";
  case attribution_mismatch_kind::count_differs:
    return "count_differs";
  case attribution_mismatch_kind::order_differs:
    return "order_differs";
  }
  return "unknown";
}

std::string kernel_name_key(std::string_view name) {
  const std::string readable = readable_kernel_name(std::string(name).c_str());
  std::string_view key = readable;
  if (key.starts_with("void ")) {
    key.remove_prefix(5);
  }
  if (const std::size_t open = parameter_list_start(key); open != std::string_view::npos) {
    key = key.substr(0, open);
  }
  return std::string(key);
}

double reduce_metric(const std::string& metric, const std::vector<const profiled_range*>& ranges) {
  std::vector<std::pair<double, double>> values; // value, duration (0: none)
  for (const profiled_range* range : ranges) {
    const auto it = range->metrics.find(metric);
    if (it == range->metrics.end()) {
      continue;
    }
    const auto duration = range->metrics.find(duration_metric);
    values.emplace_back(it->second, duration == range->metrics.end() ? 0.0 : duration->second);
  }
  if (values.empty()) {
    return 0.0;
  }
  if (ends_with(metric, ".sum")) {
    double sum = 0;
    for (const auto& [value, duration] : values) {
      sum += value;
    }
    return sum;
  }
  if (ends_with(metric, ".max")) {
    return std::max_element(values.begin(), values.end())->first;
  }
  if (ends_with(metric, ".min")) {
    return std::min_element(values.begin(), values.end())->first;
  }
  const bool weighted =
      std::all_of(values.begin(), values.end(), [](const auto& v) { return v.second > 0; });
  double total = 0;
  double weight = 0;
  for (const auto& [value, duration] : values) {
    const double w = weighted ? duration : 1.0;
    total += value * w;
    weight += w;
  }
  return total / weight;
}

namespace {

// Auto range names each range by its launch number ("0", "1", …) in CUPTI 13's range profiler.
bool named_by_number(const std::vector<profiled_range>& ranges) {
  return !ranges.empty() && std::all_of(ranges.begin(), ranges.end(), [](const auto& range) {
    return !range.name.empty() && std::all_of(range.name.begin(), range.name.end(),
                                              [](unsigned char c) { return c >= '0' && c <= '9'; });
  });
}

// Numbered ranges take the names of the iteration's kernel launches in launch order; a range past
// the last launch keeps its number ("range 7").
std::vector<profiled_range> named_by_launch_order(std::vector<profiled_range> ranges,
                                                  const std::vector<trace_record>& iteration) {
  std::size_t next = 0;
  for (profiled_range& range : ranges) {
    while (next < iteration.size() && iteration[next].kind != activity_kind::kernel) {
      ++next;
    }
    range.name = next < iteration.size() ? iteration[next++].name : "range " + range.name;
  }
  return ranges;
}

} // namespace

range_attribution attribute_ranges(const std::vector<profiled_range>& profiled,
                                   const std::vector<trace_record>& iteration) {
  const std::vector<profiled_range> ranges =
      named_by_number(profiled) ? named_by_launch_order(profiled, iteration) : profiled;
  range_attribution result;
  std::map<std::string, std::size_t> kernel_by_key; // key -> index in result.kernels
  std::vector<std::string> launch_keys;             // of kernel launches, in order
  for (const trace_record& launch : iteration) {
    if (launch.kind != activity_kind::kernel) {
      continue;
    }
    std::string key = kernel_name_key(launch.name);
    const auto [it, inserted] = kernel_by_key.try_emplace(key, result.kernels.size());
    if (inserted) {
      result.kernels.emplace_back().name = launch.name;
    }
    ++result.kernels[it->second].launches;
    launch_keys.push_back(std::move(key));
  }

  std::vector<std::string> range_keys;
  std::vector<std::string> unmatched_names; // first-seen order
  std::map<std::string, std::size_t> unmatched_counts;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    std::string key = kernel_name_key(ranges[i].name);
    if (const auto it = kernel_by_key.find(key); it != kernel_by_key.end()) {
      result.kernels[it->second].ranges.push_back(i);
    } else if (unmatched_counts[ranges[i].name]++ == 0) {
      unmatched_names.push_back(ranges[i].name);
    }
    range_keys.push_back(std::move(key));
  }

  for (kernel_counters& kernel : result.kernels) {
    std::vector<const profiled_range*> matched;
    for (const std::size_t i : kernel.ranges) {
      matched.push_back(&ranges[i]);
    }
    for (const profiled_range* range : matched) {
      for (const auto& [metric, value] : range->metrics) {
        if (!kernel.metrics.contains(metric)) {
          kernel.metrics[metric] = reduce_metric(metric, matched);
        }
      }
    }
    if (kernel.ranges.size() != kernel.launches) {
      result.mismatches.push_back({.kind = kernel.ranges.empty()
                                               ? attribution_mismatch_kind::kernel_without_range
                                               : attribution_mismatch_kind::count_differs,
                                   .name = kernel.name,
                                   .launches = kernel.launches,
                                   .ranges = kernel.ranges.size()});
    }
  }
  for (const std::string& name : unmatched_names) {
    result.mismatches.push_back({.kind = attribution_mismatch_kind::range_without_kernel,
                                 .name = name,
                                 .ranges = unmatched_counts[name]});
  }

  if (result.mismatches.empty() && range_keys != launch_keys) {
    const auto [launch, range] =
        std::mismatch(launch_keys.begin(), launch_keys.end(), range_keys.begin());
    const std::size_t position = static_cast<std::size_t>(launch - launch_keys.begin());
    const kernel_counters& kernel = result.kernels[kernel_by_key.at(*launch)];
    result.mismatches.push_back({.kind = attribution_mismatch_kind::order_differs,
                                 .name = kernel.name,
                                 .launches = kernel.launches,
                                 .ranges = kernel.ranges.size(),
                                 .position = position});
  }
  return result;
}

} // namespace kerntime::detail
