// The counters block from a counter pass's ranges and the timed iteration: per-kernel values in
// the breakdown's order, derived DRAM bytes, bandwidth and bound, mismatches in words, and the
// unavailable cases. Ranges are laid out as the range profiler returns them (one per launch, in
// launch order, named by launch number as CUPTI 13's auto range names them, or by kernel name).

#include "counters/counters_summary.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include <string>
#include <vector>

namespace kerntime::detail {
namespace {

const std::string copy = "copy_kernel(float4 const*, float4*, unsigned long)";
const std::string gemm = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT";

profiled_range range(std::string name, double read, double write, double dram_pct,
                     double tensor_pct, double ns) {
  return {std::move(name),
          {{counter_metrics::dram_read, read},
           {counter_metrics::dram_write, write},
           {counter_metrics::dram_percent, dram_pct},
           {counter_metrics::tensor_pipe, tensor_pct},
           {counter_metrics::range_duration, ns}}};
}

trace_record launch(const std::string& name, activity_kind kind = activity_kind::kernel) {
  return {name, kind, 0, 7, 0, 0};
}

counter_pass_outcome pass_of(std::vector<profiled_range> ranges) {
  counter_pass_outcome pass;
  pass.chip = "GH100";
  pass.metrics = {counter_metrics::dram_read, counter_metrics::dram_write,
                  counter_metrics::dram_percent, counter_metrics::tensor_pipe,
                  counter_metrics::range_duration};
  pass.passes = 2;
  pass.seconds = 0.3;
  pass.ranges = std::move(ranges);
  return pass;
}

std::vector<kernel_summary> breakdown() {
  // Largest first, as attribution orders it: the GEMM, then the copy.
  return {{gemm, activity_kind::kernel, 1, 173'000, 172'000, 0.6},
          {copy, activity_kind::kernel, 1, 132'000, 131'840, 0.4}};
}

TEST(derive_counters, dram_bytes_bandwidth_and_the_bound) {
  const auto d = derive_counters({{counter_metrics::dram_read, 268'451'840},
                                  {counter_metrics::dram_write, 264'103'936},
                                  {counter_metrics::dram_percent, 82.6},
                                  {counter_metrics::tensor_pipe, 0}},
                                 131'840);
  ASSERT_TRUE(d.dram_bytes && d.dram_bytes_per_second && d.bound);
  EXPECT_DOUBLE_EQ(*d.dram_bytes, 532'555'776);
  EXPECT_NEAR(*d.dram_bytes_per_second, 532'555'776 / 131'840e-9, 1);
  EXPECT_EQ(*d.bound, roofline_bound::memory);
  EXPECT_FALSE(d.dram_fraction_of_peak) << "the speed-of-light stage sets it from the peak";
}

TEST(derive_counters, the_larger_compute_percent_decides) {
  const auto d = derive_counters({{counter_metrics::dram_percent, 26.1},
                                  {counter_metrics::tensor_pipe, 94.4},
                                  {"sm__throughput.avg.pct_of_peak_sustained_elapsed", 60.0}},
                                 172'000);
  EXPECT_EQ(d.compute_percent_of_peak, 94.4);
  EXPECT_EQ(d.bound, roofline_bound::compute);
  EXPECT_FALSE(d.dram_bytes) << "no DRAM byte metrics were collected";
}

TEST(derive_counters, nothing_without_its_metrics_or_a_duration) {
  const auto d = derive_counters({{counter_metrics::dram_read, 10}}, 0);
  EXPECT_FALSE(d.dram_bytes);
  EXPECT_FALSE(d.bound);
  const auto e =
      derive_counters({{counter_metrics::dram_read, 10}, {counter_metrics::dram_write, 10}}, 0);
  EXPECT_EQ(e.dram_bytes, 20);
  EXPECT_FALSE(e.dram_bytes_per_second) << "no timed duration to divide by";
}

// A copy of a few bytes: 0.3 % DRAM and no compute is no bound at all (it once read
// "bound: memory").
TEST(derive_counters, neither_side_busy_is_no_bound) {
  const auto idle = derive_counters(
      {{counter_metrics::dram_percent, 0.3}, {counter_metrics::tensor_pipe, 0.0}}, 1'000);
  EXPECT_FALSE(idle.bound);
  const auto busy = derive_counters(
      {{counter_metrics::dram_percent, 5.0}, {counter_metrics::tensor_pipe, 0.0}}, 1'000);
  EXPECT_EQ(busy.bound, roofline_bound::memory);
}

// The H200's radix-sort kernels read L2 hit rates of 101.8-201.5 %: ratios from separate replay
// passes. Such values are said to be artefacts, with why; values in range are not.
TEST(derive_counters, a_percentage_outside_its_range_is_an_artefact_with_why) {
  const auto d = derive_counters({{counter_metrics::l2_hit_rate, 149.6},
                                  {counter_metrics::dram_percent, 12.0},
                                  {counter_metrics::tensor_pipe, -3.0},
                                  {counter_metrics::dram_read, -5.0}},
                                 1'000);
  ASSERT_EQ(d.implausible.size(), 3U) << ::testing::PrintToString(d.implausible);
  const std::string all = ::testing::PrintToString(d.implausible);
  EXPECT_NE(all.find(std::string(counter_metrics::l2_hit_rate) +
                     " = 149.6 % is outside 0-100 %: a counter artefact"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("separate replay passes"), std::string::npos);
  EXPECT_NE(all.find(std::string(counter_metrics::dram_read) + " = -5 is negative"),
            std::string::npos)
      << all;
  // 100.3 % is rounding, 101.8 % is not.
  EXPECT_TRUE(derive_counters({{counter_metrics::l2_hit_rate, 100.3}}, 1).implausible.empty());
  EXPECT_EQ(derive_counters({{counter_metrics::l2_hit_rate, 101.8}}, 1).implausible.size(), 1U);
  EXPECT_TRUE(
      derive_counters({{counter_metrics::l2_hit_rate, std::nan("")}}, 1).implausible.empty())
      << "a value CUPTI could not evaluate is missing, not implausible";
}

TEST(summarise_counters, numbered_ranges_take_the_kernels_in_launch_order) {
  // The copy launches first, the GEMM second; a memset between them has no range.
  const std::vector<trace_record> iteration = {
      launch(copy), launch("[memset]", activity_kind::memset), launch(gemm)};
  const auto s = summarise_counters(pass_of({range("0", 268e6, 264e6, 82.6, 0, 134'000),
                                             range("1", 149e6, 50e6, 26.1, 94.4, 158'528)}),
                                    iteration, breakdown(), 303'000);
  ASSERT_EQ(s.status, counters_status::measured);
  EXPECT_EQ(s.chip, "GH100");
  EXPECT_EQ(s.passes, 2);
  ASSERT_EQ(s.kernels.size(), 2u);
  EXPECT_EQ(s.kernels[0].name, gemm) << "the breakdown's order: largest time first";
  EXPECT_EQ(s.kernels[1].name, copy);
  EXPECT_EQ(s.kernels[0].derived.bound, roofline_bound::compute);
  EXPECT_EQ(s.kernels[1].derived.bound, roofline_bound::memory);
  EXPECT_NEAR(*s.kernels[1].derived.dram_bytes_per_second, 532e6 / 131'840e-9, 1e3)
      << "bytes over kerntime's own median time of the kernel, not the counter's duration";
  EXPECT_DOUBLE_EQ(s.metrics_total.at(counter_metrics::dram_read), 268e6 + 149e6);
  EXPECT_TRUE(s.mismatches.empty());
}

TEST(summarise_counters, a_missing_and_an_extra_range_are_said_in_words) {
  const std::vector<trace_record> iteration = {launch(copy), launch(gemm)};
  const auto fewer =
      summarise_counters(pass_of({range("0", 1, 1, 1, 0, 1)}), iteration, breakdown(), 1000);
  ASSERT_EQ(fewer.status, counters_status::measured);
  ASSERT_EQ(fewer.mismatches.size(), 1u);
  EXPECT_NE(fewer.mismatches[0].find("was not profiled"), std::string::npos) << fewer.mismatches[0];
  EXPECT_EQ(fewer.kernels.size(), 1u) << "a kernel without a range has no counters row";

  auto pass =
      pass_of({range("0", 1, 1, 1, 0, 1), range("1", 1, 1, 1, 0, 1), range("2", 1, 1, 1, 0, 1)});
  pass.dropped_ranges = 4;
  const auto more = summarise_counters(pass, iteration, breakdown(), 1000);
  ASSERT_EQ(more.mismatches.size(), 2u);
  EXPECT_NE(more.mismatches[0].find("range 2"), std::string::npos) << more.mismatches[0];
  EXPECT_EQ(more.mismatches[1], "CUPTI dropped 4 range(s) of the profiled iteration");
}

TEST(summarise_counters, a_failed_pass_or_no_range_is_unavailable_with_the_reason) {
  auto failed = pass_of({});
  failed.unavailable = "another profiler holds the GPU's performance counters";
  const auto s = summarise_counters(failed, {launch(copy)}, breakdown(), 1000);
  EXPECT_EQ(s.status, counters_status::unavailable);
  EXPECT_EQ(s.reason, *failed.unavailable);
  EXPECT_EQ(s.chip, "GH100") << "what was learned before the failure stays";

  const auto none =
      summarise_counters(pass_of({}), {launch("[memcpy DtoD]", activity_kind::memcpy)}, {}, 1000);
  EXPECT_EQ(none.status, counters_status::unavailable);
  EXPECT_NE(none.reason.find("only copies or memsets, which have no counters"), std::string::npos)
      << none.reason;
  const auto graph =
      summarise_counters(pass_of({}), {launch(copy), launch(copy)}, breakdown(), 1000);
  EXPECT_EQ(graph.status, counters_status::unavailable);
  EXPECT_NE(graph.reason.find("no range for the 2 kernel launch(es)"), std::string::npos)
      << graph.reason;

  const auto because = counters_unavailable_because("timing fell back to CUDA events");
  EXPECT_EQ(because.status, counters_status::unavailable);
  EXPECT_EQ(because.reason, "timing fell back to CUDA events");
}

TEST(collected_metrics, the_default_set_or_the_names_asked_then_the_range_duration) {
  const auto defaults = collected_metrics({});
  ASSERT_FALSE(defaults.empty());
  EXPECT_EQ(defaults.front(), counter_metrics::dram_read);
  EXPECT_EQ(defaults.back(), counter_metrics::range_duration);
  EXPECT_EQ(collected_metrics({"sm__throughput.avg.pct_of_peak_sustained_elapsed"}),
            (std::vector<std::string>{"sm__throughput.avg.pct_of_peak_sustained_elapsed",
                                      counter_metrics::range_duration}));
  EXPECT_EQ(collected_metrics({counter_metrics::range_duration}),
            (std::vector<std::string>{counter_metrics::range_duration}))
      << "asked for already: not twice";
}

} // namespace
} // namespace kerntime::detail
