#include "telemetry/throttle_decision.hpp"

#include <gtest/gtest.h>

#include "telemetry/clock_check.hpp"

namespace kerntime::detail {
namespace {

// H200: NVML's maximum SM clock is 1980 MHz; the default threshold is 0.9, i.e. 1782 MHz.
constexpr double h200_max_mhz = 1980;

TEST(ThrottleDecision, AtTheThresholdIsNotThrottled) {
  const throttle_decision d = decide_throttled(1782.0, h200_max_mhz, 0.9);
  EXPECT_FALSE(d.throttled);
  EXPECT_EQ(d.sm_clock_fraction, 0.9); // 1782 / 1980 rounds to the literal 0.9
  EXPECT_EQ(d.reason, "");
}

TEST(ThrottleDecision, JustBelowTheThresholdIsThrottled) {
  const throttle_decision d = decide_throttled(1781.9, h200_max_mhz, 0.9);
  EXPECT_TRUE(d.throttled);
  EXPECT_EQ(d.reason, "SM clock 1782 MHz measured on the GPU is 90.0 % of the maximum 1980 MHz "
                      "(threshold 90 %)"); // 1781.9 and 89.995 % rounded for reading
}

TEST(ThrottleDecision, FullClockIsNotThrottled) {
  EXPECT_FALSE(decide_throttled(1980.0, h200_max_mhz, 0.9).throttled);
  EXPECT_FALSE(decide_throttled(1995.0, h200_max_mhz, 1.0).throttled);
  EXPECT_TRUE(decide_throttled(1979.0, h200_max_mhz, 1.0).throttled);
}

// What the H200 showed under its power cap: NVML said sw_power_cap while the GPU ran at 1965 of
// 1980 MHz. The verdict no longer sees NVML's reasons at all; the fraction is kept for reports.
TEST(ThrottleDecision, APowerCappedTrialAtFullClockIsNotThrottled) {
  const throttle_decision d = decide_throttled(1965.0, h200_max_mhz, 0.9);
  EXPECT_FALSE(d.throttled) << d.reason;
  ASSERT_TRUE(d.sm_clock_fraction);
  EXPECT_NEAR(*d.sm_clock_fraction, 0.9924, 0.0001);
}

TEST(ThrottleDecision, TheAddmmThatRanAt1680MhzIsThrottled) {
  const throttle_decision d = decide_throttled(1680.0, h200_max_mhz, 0.9);
  EXPECT_TRUE(d.throttled);
  EXPECT_EQ(d.reason, "SM clock 1680 MHz measured on the GPU is 84.8 % of the maximum 1980 MHz "
                      "(threshold 90 %)");
}

TEST(ThrottleDecision, TheThresholdIsTheUsers) {
  EXPECT_FALSE(decide_throttled(1680.0, h200_max_mhz, 0.8).throttled);
  const throttle_decision strict = decide_throttled(1965.0, h200_max_mhz, 0.995);
  EXPECT_TRUE(strict.throttled);
  EXPECT_EQ(strict.reason, "SM clock 1965 MHz measured on the GPU is 99.2 % of the maximum "
                           "1980 MHz (threshold 99.5 %)");
}

TEST(ThrottleDecision, WithoutAClockOrAMaximumNoTrialIsJudged) {
  for (const throttle_decision& d :
       {decide_throttled(std::nullopt, h200_max_mhz, 0.9),
        decide_throttled(1000.0, std::nullopt, 0.9), decide_throttled(1000.0, 0.0, 0.9)}) {
    EXPECT_FALSE(d.throttled);
    EXPECT_FALSE(d.sm_clock_fraction);
    EXPECT_EQ(d.reason, "");
  }
}

TEST(ClocksLookLocked, CurrentEqualsApplication) {
  EXPECT_EQ(clocks_look_locked(1980, 1980, 3201, 3201), true);
  EXPECT_EQ(clocks_look_locked(1980, 1980, std::nullopt, 3201), true);
  EXPECT_EQ(clocks_look_locked(345, 1980, 3201, 3201), false); // idle, unlocked
  EXPECT_EQ(clocks_look_locked(1980, 1980, 1593, 3201), false);
  EXPECT_EQ(clocks_look_locked(std::nullopt, 1980, 3201, 3201), std::nullopt);
  EXPECT_EQ(clocks_look_locked(1980, std::nullopt, 3201, 3201), std::nullopt);
}

TEST(ClockCheckReading, CyclesOverNanoseconds) {
  // 16 us at 1980 MHz is 31680 cycles.
  EXPECT_DOUBLE_EQ(*sm_clock_mhz({31'680, 16'000}), 1980.0);
  EXPECT_DOUBLE_EQ(*sm_clock_mhz({16'032, 16'032}), 1000.0);
  EXPECT_FALSE(sm_clock_mhz({0, 0}));
  EXPECT_FALSE(sm_clock_mhz({31'680, 0}));
  EXPECT_FALSE(sm_clock_mhz({5, 16'000}));             // 0.3 MHz: a broken reading
  EXPECT_FALSE(sm_clock_mhz({1'000'000'000, 16'000})); // 62.5 GHz: a broken reading
}

} // namespace
} // namespace kerntime::detail
