#include "telemetry/throttle_decision.hpp"

#include <gtest/gtest.h>

#include "telemetry/clock_check.hpp"
#include "telemetry/clock_event_reasons.hpp"

namespace kerntime::detail {
namespace {

// H200: NVML's maximum SM clock is 1980 MHz; the default threshold is 0.9, i.e. 1782 MHz.
constexpr double h200_max_mhz = 1980;

TEST(ThrottleDecision, AtTheThresholdIsNotThrottled) {
  const throttle_decision d = decide_throttled(1782.0, h200_max_mhz, 0.9, 0);
  EXPECT_FALSE(d.throttled);
  EXPECT_EQ(d.reason, "");
}

TEST(ThrottleDecision, JustBelowTheThresholdIsThrottled) {
  const throttle_decision d = decide_throttled(1781.9, h200_max_mhz, 0.9, 0);
  EXPECT_TRUE(d.throttled);
  EXPECT_NE(d.reason.find("1782 MHz measured"), std::string::npos) << d.reason; // 1781.9 rounded
  EXPECT_NE(d.reason.find("90.0 % of the maximum 1980 MHz (threshold 90.0 %)"), std::string::npos)
      << d.reason;
}

TEST(ThrottleDecision, FullClockIsNotThrottled) {
  EXPECT_FALSE(decide_throttled(1980.0, h200_max_mhz, 0.9, 0).throttled);
  EXPECT_FALSE(decide_throttled(1995.0, h200_max_mhz, 1.0, 0).throttled);
  EXPECT_TRUE(decide_throttled(1979.0, h200_max_mhz, 1.0, 0).throttled);
}

TEST(ThrottleDecision, IdleAndApplicationClocksAreNotThrottling) {
  namespace r = clock_event_reason;
  const auto d = decide_throttled(1980.0, h200_max_mhz, 0.9,
                                  r::gpu_idle | r::applications_clocks_setting | r::sync_boost |
                                      r::display_clock_setting);
  EXPECT_FALSE(d.throttled) << d.reason;
}

TEST(ThrottleDecision, EachThrottlingReasonFlagsEvenAtFullClock) {
  namespace r = clock_event_reason;
  for (std::uint64_t bit : {r::sw_power_cap, r::hw_slowdown, r::sw_thermal_slowdown,
                            r::hw_thermal_slowdown, r::hw_power_brake_slowdown}) {
    const auto d = decide_throttled(1980.0, h200_max_mhz, 0.9, bit | r::gpu_idle);
    EXPECT_TRUE(d.throttled) << bit;
    EXPECT_EQ(d.reason, "NVML clock-event reasons: " + decode_clock_event_reasons(bit).front());
  }
}

TEST(ThrottleDecision, BothHalvesAreNamed) {
  namespace r = clock_event_reason;
  const auto d = decide_throttled(1500.0, h200_max_mhz, 0.9, r::sw_power_cap | r::hw_slowdown);
  EXPECT_TRUE(d.throttled);
  EXPECT_EQ(d.reason, "SM clock 1500 MHz measured on the GPU is 75.8 % of the maximum 1980 MHz "
                      "(threshold 90.0 %); NVML clock-event reasons: sw_power_cap, hw_slowdown");
}

TEST(ThrottleDecision, MissingReadingsDisableOnlyTheirHalf) {
  EXPECT_FALSE(decide_throttled(std::nullopt, h200_max_mhz, 0.9, 0).throttled);
  EXPECT_FALSE(decide_throttled(1000.0, std::nullopt, 0.9, 0).throttled);
  EXPECT_FALSE(decide_throttled(1000.0, 0.0, 0.9, 0).throttled);
  EXPECT_TRUE(
      decide_throttled(std::nullopt, std::nullopt, 0.9, clock_event_reason::hw_thermal_slowdown)
          .throttled);
  EXPECT_TRUE(decide_throttled(1000.0, h200_max_mhz, 0.9, 0).throttled);
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
