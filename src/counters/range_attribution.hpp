#pragma once
// Which counter ranges belong to which kernel of the breakdown. The counter pass profiles one
// iteration of the work with the range profiler in auto range + kernel replay: CUPTI returns one
// range per kernel launch, in launch order, named with the kernel's name (mangled for C++
// kernels). Timing traced the same iteration's records by name and kind. This joins the two and
// says where they disagree; it measures nothing.

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kerntime/result.hpp"

namespace kerntime::detail {

// One range of the range profiler: its name as CUPTI reports it and its metric values.
struct profiled_range {
  std::string name;
  std::map<std::string, double> metrics;
};

// A kernel of the iteration (all launches of one name) and the ranges attributed to it.
struct kernel_counters {
  std::string name;                // as timing reports it (its first launch)
  std::size_t launches = 0;        // in the timed iteration
  std::vector<std::size_t> ranges; // positions in the range list, in launch order
  // Each metric of the matched ranges reduced over them (reduce_metric): one value per kernel per
  // iteration, beside its time per iteration.
  std::map<std::string, double> metrics;
};

enum class attribution_mismatch_kind {
  range_without_kernel, // a range whose name is no kernel of the iteration
  kernel_without_range, // a kernel launched in the iteration that no range names
  count_differs,        // a kernel launched a different number of times than its ranges
  order_differs,        // names and counts agree but the sequences differ (first at `position`)
};
[[nodiscard]] std::string_view to_string(attribution_mismatch_kind k);

struct attribution_mismatch {
  attribution_mismatch_kind kind = attribution_mismatch_kind::range_without_kernel;
  std::string name;         // the kernel's (or the unmatched range's) name
  std::size_t launches = 0; // launches of that name in the timed iteration
  std::size_t ranges = 0;   // ranges of that name
  std::size_t position = 0; // order_differs: the first launch (among kernels) that differs
};

struct range_attribution {
  std::vector<kernel_counters> kernels; // in first-launch order; kernels only
  std::vector<attribution_mismatch> mismatches;
};

// The name both sides are compared by: demangled if mangled, then without a leading "void "
// (the return type a demangled template kernel carries) and without its parameter list. So
// "_Z6vecAddPKfPfi", "vecAdd(float const*, float*, int)" and "vecAdd" compare equal; overloads
// of one name fall together (kernels rarely overload).
[[nodiscard]] std::string kernel_name_key(std::string_view name);

// How one metric of a kernel's ranges becomes one value: a name ending in ".sum" adds (bytes,
// cycles and durations of the calls add up); ".max" takes the largest and ".min" the smallest;
// anything else (".avg...", ".pct", ratios, rates such as ".sum.per_second") is the mean over the
// ranges weighted by each range's gpu__time_duration.sum when every range that has the metric
// has a positive duration, and the plain mean otherwise. Ranges without the metric are skipped.
[[nodiscard]] double reduce_metric(const std::string& metric,
                                   const std::vector<const profiled_range*>& ranges);

// `iteration`: the GPU records of one timed iteration in start order (the traced trial's records
// of one `iteration`); copies and memsets get no range, the range profiler profiles kernels only.
// The k-th range of a name goes to the k-th launch of that name (names compared by
// kernel_name_key): the name says which kernel, launch order which call. Ranges named only by
// number ("0", "1", …: auto range's names in CUPTI 13) are named by launch order first: the k-th
// range is the k-th kernel launch, so only counts and positions can disagree. Every disagreement is
// listed; the ranges that match are attributed regardless.
[[nodiscard]] range_attribution attribute_ranges(const std::vector<profiled_range>& ranges,
                                                 const std::vector<trace_record>& iteration);

} // namespace kerntime::detail
