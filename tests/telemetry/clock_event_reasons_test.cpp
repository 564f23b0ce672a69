#include "telemetry/clock_event_reasons.hpp"

#include <gtest/gtest.h>

namespace kerntime::detail {
namespace {

using names = std::vector<std::string>;

TEST(ClockEventReasons, EmptyMaskHasNoNames) {
  EXPECT_EQ(decode_clock_event_reasons(0), names{});
}

TEST(ClockEventReasons, EachDocumentedBitHasItsName) {
  EXPECT_EQ(decode_clock_event_reasons(0x1), names{"gpu_idle"});
  EXPECT_EQ(decode_clock_event_reasons(0x2), names{"applications_clocks_setting"});
  EXPECT_EQ(decode_clock_event_reasons(0x4), names{"sw_power_cap"});
  EXPECT_EQ(decode_clock_event_reasons(0x8), names{"hw_slowdown"});
  EXPECT_EQ(decode_clock_event_reasons(0x10), names{"sync_boost"});
  EXPECT_EQ(decode_clock_event_reasons(0x20), names{"sw_thermal_slowdown"});
  EXPECT_EQ(decode_clock_event_reasons(0x40), names{"hw_thermal_slowdown"});
  EXPECT_EQ(decode_clock_event_reasons(0x80), names{"hw_power_brake_slowdown"});
  EXPECT_EQ(decode_clock_event_reasons(0x100), names{"display_clock_setting"});
}

TEST(ClockEventReasons, SeveralBitsDecodeLowestFirst) {
  // An idle H200 under its application clocks reports 0x1; a hot, power-capped one 0x4 | 0x20.
  EXPECT_EQ(decode_clock_event_reasons(0x24), (names{"sw_power_cap", "sw_thermal_slowdown"}));
  EXPECT_EQ(decode_clock_event_reasons(0x1FF),
            (names{"gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown",
                   "sync_boost", "sw_thermal_slowdown", "hw_thermal_slowdown",
                   "hw_power_brake_slowdown", "display_clock_setting"}));
}

TEST(ClockEventReasons, UnknownBitsAreNamedByValue) {
  EXPECT_EQ(decode_clock_event_reasons(0x200), names{"unknown(0x200)"});
  EXPECT_EQ(decode_clock_event_reasons(0x8000000000000004ULL),
            (names{"sw_power_cap", "unknown(0x8000000000000000)"}));
}

TEST(ClockEventReasons, SlowdownSetExcludesConfiguration) {
  namespace r = clock_event_reason;
  EXPECT_EQ(r::slowdown & (r::gpu_idle | r::applications_clocks_setting | r::sync_boost |
                           r::display_clock_setting),
            0U);
  EXPECT_EQ(r::slowdown, 0xECU);
}

} // namespace
} // namespace kerntime::detail
