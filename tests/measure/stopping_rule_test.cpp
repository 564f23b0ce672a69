// The stopping rule and the auto warm-up's settling test, branch by branch, on plain numbers.

#include "measure/stopping_rule.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "measure/warmup.hpp"

namespace kerntime::detail {
namespace {

// Counts how often the rule asked for the samples: the CUPTI timer pays for each look.
struct samples {
  std::vector<double> medians;
  double timer_step_ns = 0;
  int looks = 0;
  std::function<median_precision()> reader() {
    return [this] {
      ++looks;
      return precision_of(medians, timer_step_ns);
    };
  }
};

protocol stop_at(double percent) {
  protocol p;
  p.stop_at_ci = percent;
  p.max_trials = 20;
  p.max_time_s = 10;
  return p;
}

TEST(stopping_rule, the_fixed_protocol_stops_at_its_trial_count_without_reading_samples) {
  protocol p;
  p.trials = 5;
  samples s;
  EXPECT_EQ(stop_after(p, 4, 100.0, s.reader()), std::nullopt);
  EXPECT_EQ(stop_after(p, 5, 0.0, s.reader()), stop_reason::trial_count);
  EXPECT_EQ(s.looks, 0);
}

TEST(stopping_rule, stop_at_ci_always_runs_the_minimum_trials_first) {
  samples s{{1000, 1000, 1000, 1000}};
  EXPECT_EQ(stop_after(stop_at(0.5), 4, 99.0, s.reader()), std::nullopt);
  EXPECT_EQ(s.looks, 0);
}

TEST(stopping_rule, stop_at_ci_needs_six_trials_for_a_95_percent_interval) {
  samples five{{1000, 1000, 1000, 1000, 1000}};
  EXPECT_EQ(stop_after(stop_at(0.5), 5, 1.0, five.reader()), std::nullopt);
  samples six{{1000, 1001, 999, 1000, 1002, 998}};
  EXPECT_EQ(stop_after(stop_at(0.5), 6, 1.0, six.reader()), stop_reason::interval_reached);
}

TEST(stopping_rule, the_target_is_a_half_width_in_percent_of_the_median) {
  // [997, 1004] around a median of 1000.5: the far end is 3.5 / 1000.5 = 0.35 %.
  samples s{{997, 1004, 1000, 1001, 1000, 1001}};
  EXPECT_EQ(stop_after(stop_at(0.3), 6, 1.0, s.reader()), std::nullopt);
  EXPECT_EQ(stop_after(stop_at(0.4), 6, 1.0, s.reader()), stop_reason::interval_reached);
}

TEST(stopping_rule, the_bounds_end_a_run_that_never_reaches_the_target) {
  samples wide{{900, 1100, 900, 1100, 900, 1100}};
  EXPECT_EQ(stop_after(stop_at(0.5), 6, 1.0, wide.reader()), std::nullopt);
  EXPECT_EQ(stop_after(stop_at(0.5), 20, 1.0, wide.reader()), stop_reason::max_trials);
  EXPECT_EQ(stop_after(stop_at(0.5), 6, 10.0, wide.reader()), stop_reason::max_time);
}

// A copy of 1.6 µs on a timer that steps by 32 ns: the medians cannot be known closer than
// ±2 %, so a ±0.5 % target is out of reach however many trials run.
TEST(stopping_rule, a_target_below_the_timer_step_stops_at_once_and_says_why) {
  samples s{{1600, 1600, 1600, 1600, 1600, 1600}, 32};
  EXPECT_EQ(stop_after(stop_at(0.5), 6, 0.1, s.reader()), stop_reason::timer_resolution);
  // The same trials with a target wider than the step and the statistical half-width together.
  EXPECT_EQ(stop_after(stop_at(2.5), 6, 0.1, s.reader()), stop_reason::interval_reached);
  // The step is part of the half-width: 2 % of step plus a spread of ±2 % does not reach ±2.5 %.
  samples spread{{1600, 1632, 1600, 1568, 1600, 1632}, 32};
  EXPECT_EQ(stop_after(stop_at(2.5), 6, 0.1, spread.reader()), std::nullopt);
}

TEST(stopping_rule, the_interval_holds_a_timer_step_on_each_side) {
  const median_precision p = precision_of({1000, 1001, 999, 1000, 1002, 998}, 32);
  ASSERT_TRUE(p.interval.has_value());
  EXPECT_DOUBLE_EQ(p.interval->low, 998 - 32.0);
  EXPECT_DOUBLE_EQ(p.interval->high, 1002 + 32.0);
  EXPECT_NEAR(*p.half_width, 34.0 / 1000, 1e-9);
  EXPECT_NEAR(p.timer_share, 0.032, 1e-9);
}

TEST(warmup_settling, needs_two_full_windows_of_batches) {
  EXPECT_FALSE(has_settled(std::vector<double>{1000, 1000, 1000, 1000, 1000}));
  EXPECT_TRUE(has_settled(std::vector<double>{1000, 1000, 1000, 1000, 1000, 1000}));
}

TEST(warmup_settling, a_falling_time_has_not_settled_a_flat_one_has) {
  // Clocks ramping up: each window 10 % faster than the one before.
  EXPECT_FALSE(has_settled(std::vector<double>{50000, 50000, 50000, 45000, 45000, 45000}));
  // The median ignores one slow batch (a JIT call) in a window.
  EXPECT_TRUE(has_settled(std::vector<double>{50000, 40000, 40000, 40000, 40100, 39900}));
}

TEST(warmup_settling, tiny_times_compare_against_the_event_resolution_not_a_percentage) {
  // 3.0 vs 3.4 µs differ by 13 %, but by less than CUDA events' 0.5 µs resolution.
  EXPECT_TRUE(has_settled(std::vector<double>{3000, 3000, 3000, 3400, 3400, 3400}));
  EXPECT_FALSE(has_settled(std::vector<double>{3000, 3000, 3000, 3600, 3600, 3600}));
}

} // namespace
} // namespace kerntime::detail
