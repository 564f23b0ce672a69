#include "kerntime/statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kerntime/errors.hpp"

namespace kerntime {
namespace {

TEST(statistics, hand_computed_values) {
  // 1..10 plus an outlier: values chosen so every field has a hand-checkable value.
  const std::vector<double> v = {4, 1, 3, 2, 5};
  const summary_statistics s = summarize(v);
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
  EXPECT_DOUBLE_EQ(summarize(even).median, 25);
  const std::vector<double> one = {7};
  const summary_statistics s = summarize(one);
  EXPECT_DOUBLE_EQ(s.stdev, 0);
  EXPECT_DOUBLE_EQ(s.p10, 7);
  EXPECT_DOUBLE_EQ(s.cv, 0);
}

TEST(statistics, empty_input_is_an_error_not_a_zero) {
  EXPECT_THROW((void)summarize(std::vector<double>{}), invalid_argument);
}

TEST(statistics, trial_means_medians_and_their_spread) {
  const std::vector<std::vector<double>> trials = {{1, 2, 3}, {2, 4, 9}, {3, 3, 3}};
  const trial_statistics t = summarize_trials(trials);
  EXPECT_EQ(t.means, (std::vector<double>{2, 5, 3}));
  EXPECT_EQ(t.medians, (std::vector<double>{2, 4, 3}));
  // means 2, 5, 3: mean 10/3, squares (16+25+1)/9 = 42/9, /2 = 7/3
  EXPECT_DOUBLE_EQ(t.stdev_of_means, std::sqrt(7.0 / 3.0));
  EXPECT_DOUBLE_EQ(t.cv_of_means, std::sqrt(7.0 / 3.0) / (10.0 / 3.0));
}

} // namespace
} // namespace kerntime
