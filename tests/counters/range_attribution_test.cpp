// Range-to-kernel attribution on recorded range lists: the ranges as the range profiler returns
// them in auto range + kernel replay (one per kernel launch, in launch order, named by CUPTI) and
// one traced iteration's records as timing names them (demangled, with copies and memsets).

#include "counters/range_attribution.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "kerntime/counters.hpp"

namespace kerntime::detail {
namespace {

using counter_metrics::dram_percent;
using counter_metrics::dram_read;
using counter_metrics::range_duration;

// A CUB radix sort's kernels as CUPTI names them (mangled) and as timing names them (demangled).
const std::string histogram_mangled = "_ZN3cub30DeviceRadixSortHistogramKernelIjEEvPjPKT_i";
const std::string histogram = "void cub::DeviceRadixSortHistogramKernel<unsigned int>(unsigned "
                              "int*, unsigned int const*, int)";
const std::string exclusive_sum_mangled = "_ZN3cub33DeviceRadixSortExclusiveSumKernelIjEEvPj";
const std::string exclusive_sum =
    "void cub::DeviceRadixSortExclusiveSumKernel<unsigned int>(unsigned int*)";
const std::string onesweep_mangled = "_ZN3cub29DeviceRadixSortOnesweepKernelIjEEvPjS1_PKT_i";
const std::string onesweep = "void cub::DeviceRadixSortOnesweepKernel<unsigned int>(unsigned "
                             "int*, unsigned int*, unsigned int const*, int)";
const std::string memset_name = "[memset]";

// A mismatch of `kind` for the kernel `name`, counting `launches` launches and `ranges` ranges.
void expect_mismatch(const attribution_mismatch& m, attribution_mismatch_kind kind,
                     const std::string& name, std::size_t launches, std::size_t ranges) {
  EXPECT_EQ(m.kind, kind);
  EXPECT_EQ(m.name, name);
  EXPECT_EQ(m.launches, launches);
  EXPECT_EQ(m.ranges, ranges);
}

profiled_range range(std::string name, double read, double pct, double time_ns) {
  return {std::move(name), {{dram_read, read}, {dram_percent, pct}, {range_duration, time_ns}}};
}

std::vector<profiled_range> radix_sort_ranges() {
  return {range(histogram_mangled, 1000, 40, 10), range(exclusive_sum_mangled, 10, 1, 2),
          range(onesweep_mangled, 4000, 80, 30),  range(onesweep_mangled, 4000, 70, 10),
          range(onesweep_mangled, 4000, 60, 20),  range(onesweep_mangled, 4000, 50, 40)};
}

// One iteration's records as the trace holds them: in start order, one after the other.
std::vector<trace_record>
iteration_of(const std::vector<std::pair<std::string, activity_kind>>& gpu) {
  std::vector<trace_record> records;
  double start = 0;
  for (const auto& [name, kind] : gpu) {
    records.push_back({.name = name,
                       .kind = kind,
                       .iteration = 0,
                       .stream = 7,
                       .start_ns = start,
                       .end_ns = start + 10});
    start += 20;
  }
  return records;
}

std::vector<trace_record> radix_sort_launches() {
  return iteration_of({{memset_name, activity_kind::memset},
                       {histogram, activity_kind::kernel},
                       {exclusive_sum, activity_kind::kernel},
                       {onesweep, activity_kind::kernel},
                       {onesweep, activity_kind::kernel},
                       {onesweep, activity_kind::kernel},
                       {onesweep, activity_kind::kernel}});
}

TEST(range_attribution, a_mangled_range_name_matches_the_demangled_kernel_name) {
  EXPECT_EQ(kernel_name_key(onesweep_mangled), "cub::DeviceRadixSortOnesweepKernel<unsigned int>");
  EXPECT_EQ(kernel_name_key(onesweep), "cub::DeviceRadixSortOnesweepKernel<unsigned int>");
  EXPECT_EQ(kernel_name_key("_Z6vecAddPKfPfi"), "vecAdd");
  EXPECT_EQ(kernel_name_key("vecAdd(float const*, float*, int)"), "vecAdd");
  EXPECT_EQ(kernel_name_key("vecAdd"), "vecAdd");
  EXPECT_EQ(kernel_name_key("void k<void (*)(int)>(int)"), "k<void (*)(int)>");
}

TEST(range_attribution, every_kernel_of_a_radix_sort_gets_its_ranges_in_launch_order) {
  const auto ranges = radix_sort_ranges();
  const auto result = attribute_ranges(ranges, radix_sort_launches());
  EXPECT_TRUE(result.mismatches.empty());
  ASSERT_EQ(result.kernels.size(), 3U);
  EXPECT_EQ(result.kernels[0].name, histogram);
  EXPECT_EQ(result.kernels[0].launches, 1U);
  EXPECT_EQ(result.kernels[0].ranges, (std::vector<std::size_t>{0}));
  EXPECT_EQ(result.kernels[1].name, exclusive_sum);
  EXPECT_EQ(result.kernels[1].ranges, (std::vector<std::size_t>{1}));
  EXPECT_EQ(result.kernels[2].name, onesweep);
  EXPECT_EQ(result.kernels[2].launches, 4U);
  EXPECT_EQ(result.kernels[2].ranges, (std::vector<std::size_t>{2, 3, 4, 5}));
  EXPECT_EQ(result.kernels[0].metrics.at(dram_read), 1000);
  EXPECT_EQ(result.kernels[0].metrics.at(dram_percent), 40);
}

TEST(range_attribution, sums_add_over_calls_and_percentages_are_weighted_by_duration) {
  const auto result = attribute_ranges(radix_sort_ranges(), radix_sort_launches());
  const auto& onesweep_metrics = result.kernels[2].metrics;
  EXPECT_EQ(onesweep_metrics.at(dram_read), 16000);
  EXPECT_EQ(onesweep_metrics.at(range_duration), 100);
  // (80*30 + 70*10 + 60*20 + 50*40) / 100
  EXPECT_DOUBLE_EQ(onesweep_metrics.at(dram_percent), 63);
}

TEST(range_attribution, without_durations_other_roll_ups_are_the_plain_mean) {
  const std::vector<profiled_range> ranges = {{"k", {{dram_percent, 80}, {"sm__cycles.max", 5}}},
                                              {"k", {{dram_percent, 50}, {"sm__cycles.max", 9}}}};
  const auto result = attribute_ranges(
      ranges, iteration_of({{"k", activity_kind::kernel}, {"k", activity_kind::kernel}}));
  EXPECT_DOUBLE_EQ(result.kernels[0].metrics.at(dram_percent), 65);
  EXPECT_EQ(result.kernels[0].metrics.at("sm__cycles.max"), 9);
}

TEST(range_attribution, a_memset_of_the_breakdown_expects_no_range) {
  const auto result = attribute_ranges(radix_sort_ranges(), radix_sort_launches());
  for (const auto& kernel : result.kernels) {
    EXPECT_NE(kernel.name, memset_name);
  }
  EXPECT_TRUE(result.mismatches.empty());
}

TEST(range_attribution, a_range_named_after_no_kernel_and_a_kernel_without_range_are_reported) {
  auto ranges = radix_sort_ranges();
  ranges[1].name = "_Z14unknown_kernelv";
  const auto result = attribute_ranges(ranges, radix_sort_launches());
  ASSERT_EQ(result.mismatches.size(), 2U);
  expect_mismatch(result.mismatches[0], attribution_mismatch_kind::kernel_without_range,
                  exclusive_sum, 1, 0);
  EXPECT_EQ(result.mismatches[1].kind, attribution_mismatch_kind::range_without_kernel);
  EXPECT_EQ(result.mismatches[1].name, "_Z14unknown_kernelv");
  EXPECT_EQ(result.mismatches[1].ranges, 1U);
  EXPECT_TRUE(result.kernels[1].metrics.empty());
  EXPECT_EQ(result.kernels[2].ranges.size(), 4U); // the others are still attributed
}

TEST(range_attribution, a_kernel_with_fewer_ranges_than_launches_is_a_count_mismatch) {
  auto ranges = radix_sort_ranges();
  ranges.pop_back();
  const auto result = attribute_ranges(ranges, radix_sort_launches());
  ASSERT_EQ(result.mismatches.size(), 1U);
  expect_mismatch(result.mismatches[0], attribution_mismatch_kind::count_differs, onesweep, 4, 3);
  EXPECT_EQ(result.kernels[2].metrics.at(dram_read), 12000);
}

TEST(range_attribution, the_same_kernels_in_another_order_are_reported_where_they_part) {
  auto ranges = radix_sort_ranges();
  std::swap(ranges[1], ranges[2]);
  const auto result = attribute_ranges(ranges, radix_sort_launches());
  ASSERT_EQ(result.mismatches.size(), 1U);
  EXPECT_EQ(result.mismatches[0].kind, attribution_mismatch_kind::order_differs);
  EXPECT_EQ(result.mismatches[0].name, exclusive_sum);
  EXPECT_EQ(result.mismatches[0].position, 1U);
  EXPECT_EQ(result.kernels[2].ranges, (std::vector<std::size_t>{1, 3, 4, 5}));
}

TEST(range_attribution,
     empty_inputs_attribute_nothing_and_an_empty_side_makes_every_other_row_a_mismatch) {
  const auto none = attribute_ranges({}, {});
  EXPECT_TRUE(none.kernels.empty());
  EXPECT_TRUE(none.mismatches.empty());

  const auto only_a_copy =
      attribute_ranges({}, iteration_of({{"[memcpy HtoD]", activity_kind::memcpy}}));
  EXPECT_TRUE(only_a_copy.kernels.empty());
  EXPECT_TRUE(only_a_copy.mismatches.empty());

  const auto no_ranges = attribute_ranges({}, radix_sort_launches());
  EXPECT_EQ(no_ranges.kernels.size(), 3U);
  EXPECT_EQ(no_ranges.mismatches.size(), 3U);

  const auto no_launches = attribute_ranges(radix_sort_ranges(), {});
  EXPECT_TRUE(no_launches.kernels.empty());
  ASSERT_EQ(no_launches.mismatches.size(), 3U);
  EXPECT_EQ(no_launches.mismatches[2].name, onesweep_mangled);
  EXPECT_EQ(no_launches.mismatches[2].ranges, 4U);
}

} // namespace
} // namespace kerntime::detail
