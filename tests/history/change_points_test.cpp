// The change-point method on synthetic series with a fixed seed (docs/history.md has the rates):
// a 2 % step under 0.5 % noise found within 5 runs of where it happened, stationary series of a
// year of nightly runs without a false change, and the energy statistic peaking at the step.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "history/change_points.hpp"

namespace kerntime::detail {
namespace {

std::vector<double> noisy(std::mt19937_64& random, std::size_t n, double level, double noise) {
  std::normal_distribution<double> normal(level, level * noise);
  std::vector<double> x(n);
  for (auto& v : x) {
    v = normal(random);
  }
  return x;
}

TEST(change_points_test, TheEnergyStatisticPeaksAtAStep) {
  std::mt19937_64 random(7);
  auto x = noisy(random, 40, 100.0, 0.005);
  for (std::size_t i = 25; i < x.size(); ++i) {
    x[i] *= 1.02;
  }
  const auto q = energy_divergence(x, 3);
  EXPECT_EQ(std::max_element(q.begin(), q.end()) - q.begin(), 25);
  EXPECT_EQ(q[2], 0.0); // no split leaves fewer than 3 points on a side
  EXPECT_EQ(q[38], 0.0);
}

TEST(change_points_test, ATwoPercentStepUnderHalfAPercentNoiseIsFoundWhereItHappened) {
  std::mt19937_64 random(1);
  std::uniform_int_distribution<std::size_t> where(10, 95);
  int found = 0;
  int exact = 0;
  int extra = 0;
  constexpr int series = 1000;
  for (int s = 0; s < series; ++s) {
    auto x = noisy(random, 100, 1000.0, 0.005);
    const std::size_t step = where(random); // at least 5 runs after it
    for (std::size_t i = step; i < x.size(); ++i) {
      x[i] *= 1.02;
    }
    const auto changes = find_change_points(x);
    bool near = false;
    for (const auto& c : changes) {
      const auto distance = c.index > step ? c.index - step : step - c.index;
      if (distance <= 5 && c.ratio > 1.01) {
        near = true;
        exact += distance == 0 ? 1 : 0;
      } else {
        ++extra;
      }
    }
    found += near ? 1 : 0;
  }
  std::printf("found %d (exactly %d) of %d, other changes %d\n", found, exact, series, extra);
  RecordProperty("found_within_5_runs", found);
  RecordProperty("found_exactly", exact);
  RecordProperty("other_changes", extra);
  EXPECT_GE(found, 950) << "found " << found << " of " << series;
  EXPECT_LE(extra, 10) << extra << " changes where there was none";
}

TEST(change_points_test, AYearOfUnchangedNightlyRunsHoldsNoChange) {
  std::mt19937_64 random(2);
  int false_changes = 0;
  constexpr int series = 200;
  for (int s = 0; s < series; ++s) {
    false_changes += static_cast<int>(find_change_points(noisy(random, 365, 1000.0, 0.005)).size());
  }
  std::printf("false changes %d in %d series\n", false_changes, series);
  RecordProperty("false_changes_in_200_series", false_changes);
  EXPECT_LE(false_changes, 2) << false_changes << " false changes in " << series << " series";
}

TEST(change_points_test, AStepAtTheTipIsFoundOnceThreeRunsShowIt) {
  std::mt19937_64 random(3);
  auto x = noisy(random, 60, 1000.0, 0.005);
  x.push_back(1020.0);
  x.push_back(1021.0);
  x.push_back(1019.0); // three runs on a new level: the fewest a change may rest on
  const auto changes = find_change_points(x);
  ASSERT_EQ(changes.size(), 1U);
  EXPECT_EQ(changes[0].index, 60U);
  EXPECT_NEAR(changes[0].ratio, 1.02, 0.004);
  EXPECT_LT(changes[0].ratio_low, changes[0].ratio);
  EXPECT_GT(changes[0].ratio_high, changes[0].ratio);
}

TEST(change_points_test, TwoStepsAreBothFoundWithTheirOwnLevels) {
  std::mt19937_64 random(4);
  auto x = noisy(random, 120, 1000.0, 0.005);
  for (std::size_t i = 40; i < 80; ++i) {
    x[i] *= 1.03;
  }
  for (std::size_t i = 80; i < x.size(); ++i) {
    x[i] *= 0.97;
  }
  const auto changes = find_change_points(x);
  ASSERT_EQ(changes.size(), 2U);
  EXPECT_EQ(changes[0].index, 40U);
  EXPECT_EQ(changes[1].index, 80U);
  EXPECT_NEAR(changes[0].ratio, 1.03, 0.005);
  EXPECT_NEAR(changes[1].ratio, 0.97 / 1.03, 0.005);
}

TEST(change_points_test, AShiftBelowTheSmallestReportedChangeIsLeftOut) {
  std::vector<double> x(40, 1000.0);
  for (std::size_t i = 20; i < x.size(); ++i) {
    x[i] = 1001.0; // 0.1 %: certain (no noise) but below min_change
  }
  EXPECT_TRUE(find_change_points(x).empty());
  EXPECT_EQ(find_change_points(x, {.min_change = 0}).size(), 1U);
  EXPECT_TRUE(find_change_points(std::vector<double>(5, 1.0)).empty()); // too short to split
}

} // namespace
} // namespace kerntime::detail
