// The CUPTI Profiler Host API itself, without a GPU: metric names and pass counts by chip name.
// Pass counts are CUPTI's (13.0); a newer CUPTI that schedules counters differently changes them,
// and docs/counters.md should follow.

#include "counters/metric_plan.hpp"

#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "kerntime/counters.hpp"

namespace kerntime::detail {
namespace {

using counter_metrics::dram_percent;
using counter_metrics::dram_read;
using counter_metrics::dram_write;
using counter_metrics::l2_hit_rate;
using counter_metrics::range_duration;
const std::string gh100_tensor_pipe =
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active";
const std::string sm_throughput = "sm__throughput.avg.pct_of_peak_sustained_elapsed";

class metric_plan_test : public ::testing::Test {
protected:
  void SetUp() override {
    const auto loaded = load_profiler_host();
    if (const auto* why = std::get_if<std::string>(&loaded)) {
      GTEST_SKIP() << "the CUPTI Profiler Host API cannot be loaded: " << *why;
    }
    host_ = std::get<const profiler_host_library*>(loaded);
  }
  const profiler_host_library* host_ = nullptr;
};

TEST_F(metric_plan_test, dram_read_write_and_percent_of_peak_take_one_pass_on_gh100) {
  const auto plan = check_metrics(*host_, "GH100", {dram_read, dram_write, dram_percent});
  EXPECT_EQ(plan.passes, 1U);
  EXPECT_TRUE(plan.all_known());
}

TEST_F(metric_plan_test, adding_l2_hit_rate_tensor_pipe_and_duration_takes_two_passes_on_gh100) {
  const auto plan = check_metrics(
      *host_, "GH100",
      {dram_read, dram_write, dram_percent, l2_hit_rate, gh100_tensor_pipe, range_duration});
  EXPECT_EQ(plan.passes, 2U);
}

TEST_F(metric_plan_test, sm_throughput_alone_takes_eight_passes_on_gh100) {
  EXPECT_EQ(check_metrics(*host_, "GH100", {sm_throughput}).passes, 8U);
}

TEST_F(metric_plan_test, the_default_set_takes_at_most_two_passes_on_gh100_and_gb100) {
  EXPECT_LE(check_metrics(*host_, "GH100", default_metrics()).passes, 2U);
  EXPECT_LE(check_metrics(*host_, "GB100", default_metrics()).passes, 2U);
}

TEST_F(metric_plan_test, an_unknown_metric_is_refused_naming_the_metric_the_chip_and_close_names) {
  try {
    (void)check_metrics(*host_, "GH100", {dram_read, "dram__byts_read.sum"});
    FAIL() << "an unknown metric was accepted";
  } catch (const unknown_metrics& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.kind(), error_kind::invalid_argument);
    EXPECT_EQ(e.chip(), "GH100");
    ASSERT_EQ(e.unknown().size(), 1U);
    EXPECT_EQ(e.unknown()[0].name, "dram__byts_read.sum");
    EXPECT_NE(message.find("\"dram__byts_read.sum\""), std::string::npos) << message;
    EXPECT_NE(message.find("chip GH100"), std::string::npos) << message;
    EXPECT_NE(message.find("dram__bytes_read.sum"), std::string::npos) << message;
    EXPECT_NE(message.find("--metrics"), std::string::npos) << message;
  }
}

TEST_F(metric_plan_test, a_base_metric_without_its_roll_up_is_unknown_and_offered_its_roll_ups) {
  const auto plan = plan_metrics(*host_, "GH100", {"dram__bytes_read", dram_write});
  ASSERT_EQ(plan.metrics.size(), 2U);
  EXPECT_FALSE(plan.metrics[0].known);
  EXPECT_TRUE(plan.metrics[1].known);
  EXPECT_EQ(plan.passes, 1U); // of the known one
  ASSERT_FALSE(plan.metrics[0].close_names.empty());
  for (const auto& name : plan.metrics[0].close_names) {
    EXPECT_EQ(name.rfind("dram__bytes_read.", 0), 0U) << name;
  }
}

TEST_F(metric_plan_test, the_gh100_tensor_pipe_name_is_unknown_on_gb100) {
  const auto plan = plan_metrics(*host_, "GB100", {gh100_tensor_pipe});
  ASSERT_EQ(plan.metrics.size(), 1U);
  EXPECT_FALSE(plan.metrics[0].known);
  EXPECT_EQ(plan.passes, 0U);
}

TEST_F(metric_plan_test, an_unknown_chip_is_an_invalid_argument_listing_the_known_chips) {
  try {
    (void)plan_metrics(*host_, "GH999", {dram_read});
    FAIL() << "an unknown chip was accepted";
  } catch (const invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("GH999"), std::string::npos) << message;
    EXPECT_NE(message.find("GH100"), std::string::npos) << message;
  }
}

} // namespace
} // namespace kerntime::detail
