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
  int looks = 0;
  std::function<std::vector<double>()> reader() {
    return [this] {
      ++looks;
      return medians;
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
