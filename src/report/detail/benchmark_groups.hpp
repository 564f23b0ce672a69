#pragma once
// The runs of a report grouped by benchmark, as the markdown and HTML reports lay them out: one
// table per benchmark, its states in plan order, its columns the union of the states' axes.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "kerntime/report.hpp"

namespace kerntime::detail {

struct benchmark_group {
  std::string name;
  std::vector<std::size_t> runs; // indices into the report's runs, in order
  std::vector<std::string> axes; // union of the runs' axis names, in first-seen order
};

// Benchmarks in the order they first appear.
[[nodiscard]] std::vector<benchmark_group> group_by_benchmark(std::span<const benchmark_run> runs);

// The columns a benchmark's table shows only when some state has them.
struct optional_columns {
  bool flops = false;       // declared FLOPs: TFLOP/s
  bool bytes = false;       // declared bytes: GB/s
  bool sol = false;         // speed of light
  bool achievable = false;  // the share of the calibrated peaks
  bool energy = false;      // energy per iteration and power
  bool launch = false;      // graph launches, unless a --cuda-graph=both axis already names them
  bool preparation = false; // the spread between preparations (2 or more of them)
};

[[nodiscard]] optional_columns columns_of(const benchmark_group& group,
                                          std::span<const benchmark_run> runs);

} // namespace kerntime::detail
