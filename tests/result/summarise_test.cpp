// summarise_samples() alone: what a timer hands on becomes a closed measurement_result with every
// aggregate computed once (statistics, per-trial medians, the stopping summary, the timer's step).

#include "result/summarise.hpp"

#include <gtest/gtest.h>

#include "result/trials_of.hpp"

namespace kerntime::detail {
namespace {

TEST(summarise, the_headline_is_the_median_of_every_iteration_and_trials_keep_their_own) {
  const measurement_result r =
      summarise_samples(trials_of({{1000, 1032, 1064}, {1032, 1064, 1096}}), protocol{});
  EXPECT_DOUBLE_EQ(r.latency_ns, 1048);
  EXPECT_EQ(r.stats.count, 6U);
  EXPECT_DOUBLE_EQ(r.span.median, 1048);
  EXPECT_DOUBLE_EQ(r.busy.median, 0.9 * 1048);
  ASSERT_EQ(r.trials_summary.medians.size(), 2U);
  EXPECT_DOUBLE_EQ(r.trials_summary.medians[0], 1032);
  EXPECT_DOUBLE_EQ(r.trials_summary.medians[1], 1064);
  EXPECT_EQ(r.trials.size(), 2U);
  EXPECT_EQ(r.stopping.trials, 2);
  EXPECT_EQ(r.stopping.reason, stop_reason::trial_count);
  EXPECT_FALSE(r.stopping.half_width.has_value()); // fewer than 6 trials
  EXPECT_DOUBLE_EQ(r.timer_resolution_ns, 32);
}

TEST(summarise, the_busy_metric_makes_busy_the_headline) {
  protocol p;
  p.metric = headline_metric::busy;
  const measurement_result r = summarise_samples(trials_of({{1000, 2000, 3000}}), p);
  EXPECT_DOUBLE_EQ(r.latency_ns, 1800);
  EXPECT_DOUBLE_EQ(r.stats.median, 1800);
  EXPECT_DOUBLE_EQ(r.span.median, 2000);
}

TEST(summarise, the_interval_of_the_median_holds_a_timer_step_on_each_side) {
  const measurement_result r = summarise_samples(
      trials_of(
          {{1600, 1632}, {1600, 1632}, {1600, 1568}, {1600, 1632}, {1600, 1600}, {1632, 1600}}),
      protocol{});
  ASSERT_TRUE(r.stopping.median_interval.has_value());
  EXPECT_DOUBLE_EQ(r.timer_resolution_ns, 32);
  EXPECT_DOUBLE_EQ(r.stopping.median_interval->low, 1584 - 32.0);
  EXPECT_DOUBLE_EQ(r.stopping.median_interval->high, 1616 + 32.0);
}

TEST(summarise, a_missed_stop_at_ci_target_is_a_warning_that_names_the_bound) {
  protocol p;
  p.stop_at_ci = 0.1;
  p.max_trials = 6;
  timed_trials timed = trials_of({{1000}, {1100}, {1200}, {1000}, {1100}, {1200}});
  timed.stopped_because = stop_reason::max_trials;
  const measurement_result r = summarise_samples(std::move(timed), p);
  ASSERT_EQ(r.warnings.size(), 1U);
  EXPECT_NE(r.warnings[0].find("when max_trials (6) ended the run after 6 trials"),
            std::string::npos)
      << r.warnings[0];
}

TEST(summarise, a_target_below_the_timer_step_is_said_with_the_step) {
  protocol p;
  p.stop_at_ci = 0.5;
  timed_trials timed = trials_of({{1600, 1632}, {1568}, {1600}, {1600}, {1600}, {1600}});
  timed.stopped_because = stop_reason::timer_resolution;
  const measurement_result r = summarise_samples(std::move(timed), p);
  ASSERT_EQ(r.warnings.size(), 1U);
  EXPECT_NE(r.warnings[0].find("the timer steps by 32 ns, 2.00 % of the median"), std::string::npos)
      << r.warnings[0];
}

TEST(summarise, what_the_timer_handed_on_is_moved_in_unchanged) {
  timed_trials timed = trials_of({{1000}});
  timed.kernels.push_back({"k", activity_kind::kernel, 1, 900, 900, 1});
  timed.trace.push_back({"k", activity_kind::kernel, 0, 7, 0, 900});
  timed.warnings.push_back("a warning");
  timed.flush_median_ns = 41000;
  timed.work.host_gap_iterations = 2;
  const measurement_result r = summarise_samples(std::move(timed), protocol{});
  ASSERT_EQ(r.kernels.size(), 1U);
  EXPECT_EQ(r.kernels[0].name, "k");
  EXPECT_EQ(r.trace.size(), 1U);
  EXPECT_EQ(r.warnings, std::vector<std::string>{"a warning"});
  EXPECT_DOUBLE_EQ(r.flush_median_ns, 41000);
  EXPECT_EQ(r.work.host_gap_iterations, 2);
  EXPECT_DOUBLE_EQ(r.timer_resolution_ns, 0); // one value: no step to read
}

// The trace keeps the first trial's first iterations only: the rest were two thirds of a result
// file's bytes and show nothing the first ten do not.
TEST(summarise, the_trace_keeps_the_first_iterations) {
  timed_trials timed = trials_of({{1000, 1000}});
  for (int i = 0; i < 3 * traced_iterations; ++i) {
    timed.trace.push_back({"k", activity_kind::kernel, i, 7, 1000.0 * i, 1000.0 * i + 900});
  }
  const measurement_result r = summarise_samples(std::move(timed), protocol{});
  ASSERT_EQ(r.trace.size(), static_cast<std::size_t>(traced_iterations));
  EXPECT_EQ(r.trace.front().iteration, 0);
  EXPECT_EQ(r.trace.back().iteration, traced_iterations - 1);
}

} // namespace
} // namespace kerntime::detail
