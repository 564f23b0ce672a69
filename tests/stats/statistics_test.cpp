#include "kerntime/statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kerntime/errors.hpp"

namespace kerntime {
namespace {

TEST(statistics, hand_computed_values) {
  // 1..10 plus an outlier: values chosen so every field has a hand-checkable value.
  const std::vector<double> v = {4, 1, 3, 2, 5};
  const summary_statistics s = summarise_values(v);
  EXPECT_EQ(s.count, 5U);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.stdev, std::sqrt(2.5)); // (4+1+0+1+4)/4
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.p10, 1.4); // rank 0.4 between 1 and 2
  EXPECT_DOUBLE_EQ(s.p90, 4.6); // rank 3.6 between 4 and 5
  EXPECT_DOUBLE_EQ(s.cv, std::sqrt(2.5) / 3);
}

TEST(statistics, even_count_median_and_single_value) {
  const std::vector<double> even = {10, 40, 20, 30};
  EXPECT_DOUBLE_EQ(summarise_values(even).median, 25);
  const std::vector<double> one = {7};
  const summary_statistics s = summarise_values(one);
  EXPECT_DOUBLE_EQ(s.stdev, 0);
  EXPECT_DOUBLE_EQ(s.p10, 7);
  EXPECT_DOUBLE_EQ(s.cv, 0);
}

TEST(statistics, empty_input_is_an_error_not_a_zero) {
  EXPECT_THROW((void)summarise_values(std::vector<double>{}), invalid_argument);
}

TEST(statistics, trial_means_medians_and_their_spread) {
  const std::vector<std::vector<double>> trials = {{1, 2, 3}, {2, 4, 9}, {3, 3, 3}};
  const trial_statistics t = summarise_trials(trials);
  EXPECT_EQ(t.means, (std::vector<double>{2, 5, 3}));
  EXPECT_EQ(t.medians, (std::vector<double>{2, 4, 3}));
  // means 2, 5, 3: mean 10/3, squares (16+25+1)/9 = 42/9, /2 = 7/3
  EXPECT_DOUBLE_EQ(t.stdev_of_means, std::sqrt(7.0 / 3.0));
  EXPECT_DOUBLE_EQ(t.cv_of_means, std::sqrt(7.0 / 3.0) / (10.0 / 3.0));
}

TEST(clipped_mean, keeps_what_lies_within_two_timer_steps_or_four_scaled_mads) {
  // MAD 0 and no step: only the median's own value is kept.
  EXPECT_DOUBLE_EQ(clipped_mean({10, 10, 10, 20}, 0), 10);
  // A 5 ns step widens the window to 10 ns: 20 is kept.
  EXPECT_DOUBLE_EQ(clipped_mean({10, 10, 10, 20}, 5), 12.5);
  // A stray iteration ten times as long is dropped, the spread around the median is not.
  EXPECT_DOUBLE_EQ(clipped_mean({99, 100, 100, 101, 1000}, 0), 100);
  EXPECT_THROW((void)clipped_mean({}, 32), invalid_argument);
  EXPECT_THROW((void)clipped_mean({1, 2}, -1), invalid_argument);
}

TEST(clipped_mean, resolves_finer_than_the_timers_step_where_the_median_cannot) {
  // A 1,800 ns kernel read by a timer that ticks every 32 ns, starting anywhere between two
  // ticks: each reading is 1,792 or 1,824 ns (56 and 57 ticks) and the median of a trial lands
  // on one of them, 8 ns (0.4 %) or more off; the clipped mean of the same trial does not.
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> phase(0, 32);
  std::normal_distribution<double> jitter(0, 4);
  double worst_median_error = 0;
  double worst_clipped_error = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> readings;
    for (int i = 0; i < 50; ++i) {
      const double start = phase(random);
      const double end = start + 1800 + jitter(random);
      readings.push_back(32 * (std::floor(end / 32) - std::floor(start / 32)));
    }
    worst_median_error = std::max(worst_median_error, std::abs(median(readings) - 1800));
    worst_clipped_error =
        std::max(worst_clipped_error, std::abs(clipped_mean(readings, 32) - 1800));
  }
  EXPECT_GE(worst_median_error, 8);
  EXPECT_LT(worst_clipped_error, 8);
}

TEST(median_interval, five_values_cannot_reach_95_percent_six_can_with_min_and_max) {
  // [min, max] of n values misses the median with probability 2 / 2^n: 1/16 for 5, 1/32 for 6.
  EXPECT_FALSE(median_interval({5, 1, 4, 2, 3}).has_value());
  const auto six = median_interval({6, 1, 5, 2, 4, 3});
  ASSERT_TRUE(six.has_value());
  EXPECT_DOUBLE_EQ(six->low, 1);
  EXPECT_DOUBLE_EQ(six->high, 6);
  EXPECT_DOUBLE_EQ(six->confidence, 1.0 - 2.0 / 64.0);
  const auto at_90 = median_interval({5, 1, 4, 2, 3}, 0.90);
  ASSERT_TRUE(at_90.has_value());
  EXPECT_DOUBLE_EQ(at_90->confidence, 1.0 - 2.0 / 32.0);
}

TEST(median_interval, inner_order_statistics_once_there_are_enough_values) {
  // n = 9: k = 2 misses with 2·P(B <= 1) = 2·10/512 = 0.039 (covers 96.1 %); k = 3 with
  // 2·46/512 = 0.18. So the interval is [x(2), x(8)].
  const auto nine = median_interval({9, 8, 7, 6, 5, 4, 3, 2, 1});
  ASSERT_TRUE(nine.has_value());
  EXPECT_DOUBLE_EQ(nine->low, 2);
  EXPECT_DOUBLE_EQ(nine->high, 8);
  EXPECT_NEAR(nine->confidence, 1.0 - 20.0 / 512.0, 1e-12);
  EXPECT_DOUBLE_EQ(relative_half_width(*nine, 5), 0.6); // |8 - 5| / 5
}

TEST(median_interval, covers_the_true_median_at_least_as_often_as_promised) {
  // Lognormal samples (skewed, like latencies) of sizes the stopping rule sees; the true median
  // is exp(mu). Fixed seed: the count is the same on every machine.
  std::mt19937_64 random(20261201);
  const double mu = std::log(20000.0);
  std::lognormal_distribution<double> latency(mu, 0.01);
  for (const std::size_t n : {6U, 10U, 25U, 100U}) {
    int covered = 0;
    constexpr int simulations = 2000;
    for (int i = 0; i < simulations; ++i) {
      std::vector<double> values(n);
      for (auto& v : values) {
        v = latency(random);
      }
      const auto interval = median_interval(values);
      ASSERT_TRUE(interval.has_value());
      covered += interval->low <= std::exp(mu) && std::exp(mu) <= interval->high ? 1 : 0;
    }
    const double coverage = static_cast<double>(covered) / simulations;
    EXPECT_GE(coverage, 0.94) << n << " values";  // promised >= 95 %, 1 point of sampling slack
    EXPECT_LE(coverage, 0.995) << n << " values"; // and not a trivially wide interval
  }
}

} // namespace
} // namespace kerntime
