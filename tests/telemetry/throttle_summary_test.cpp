// A state's throttling in one line: real trial_telemetry values as the probe fills them on an
// H200 (max SM clock 1980 MHz) in, the exact sentence out. The figures are the ones seen there:
// sw_power_cap at 1965 MHz on most states, 1680 MHz on an addmm that really throttled.
#include "telemetry/throttle_summary.hpp"

#include <gtest/gtest.h>

#include "telemetry/clock_event_reasons.hpp"
#include "telemetry/throttle_decision.hpp"

namespace kerntime::detail {
namespace {

constexpr double h200_max_mhz = 1980;

gpu_snapshot nvml_reading(std::uint64_t reasons) {
  gpu_snapshot s;
  s.sm_clock_mhz = 1980;
  s.clock_event_reasons = reasons;
  s.clock_event_names = decode_clock_event_reasons(reasons);
  return s;
}

// One trial as telemetry_probe::after_trial leaves it: the decision made by the real rule.
trial_telemetry trial(std::optional<double> measured_mhz, std::uint64_t reasons_before,
                      std::uint64_t reasons_after, double threshold = 0.9) {
  trial_telemetry t;
  t.before = nvml_reading(reasons_before);
  t.after = nvml_reading(reasons_after);
  t.measured_sm_clock_mhz = measured_mhz;
  const throttle_decision d = decide_throttled(measured_mhz, h200_max_mhz, threshold);
  t.sm_clock_fraction = d.sm_clock_fraction;
  t.throttled = d.throttled;
  t.throttle_reason = d.reason;
  return t;
}

namespace r = clock_event_reason;

TEST(ThrottleSummary, APowerCapAtFullClockIsOneLineOfInformationAndNoVerdict) {
  const std::vector<trial_telemetry> trials(5, trial(1965.0, r::gpu_idle, r::sw_power_cap));
  const throttle_summary s = summarise_throttling(trials, 0.9);
  EXPECT_EQ(s.throttled_trials, 0);
  EXPECT_EQ(s.judged_trials, 5);
  EXPECT_EQ(describe_throttling(s), "");
  EXPECT_EQ(describe_clock_events(s),
            "5 of 5 trials: NVML sw_power_cap; SM clock 1965 MHz, 99 % of max");
}

TEST(ThrottleSummary, RealThrottlingStandsOutWithItsClock) {
  std::vector<trial_telemetry> trials(3, trial(1965.0, 0, r::sw_power_cap));
  trials.push_back(trial(1680.0, r::sw_power_cap, r::sw_power_cap));
  trials.push_back(trial(1680.0, 0, r::sw_power_cap));
  const throttle_summary s = summarise_throttling(trials, 0.9);
  EXPECT_EQ(s.throttled_trials, 2);
  EXPECT_EQ(describe_throttling(s), "2 of 5 trials below 90 % of max SM clock: 1680 MHz, 85 %");
  EXPECT_EQ(describe_clock_events(s), "5 of 5 trials: NVML sw_power_cap; SM clock 1680\xE2\x80\x93"
                                      "1965 MHz, 85\xE2\x80\x93"
                                      "99 % of max");
}

TEST(ThrottleSummary, ThrottledTrialsThatDifferShowTheirRange) {
  const std::vector<trial_telemetry> trials = {trial(1680.0, 0, 0), trial(1753.0, 0, 0),
                                               trial(1980.0, 0, 0)};
  EXPECT_EQ(describe_throttling(summarise_throttling(trials, 0.9)),
            "2 of 3 trials below 90 % of max SM clock: 1680\xE2\x80\x93"
            "1753 MHz, 85\xE2\x80\x93"
            "89 %");
}

TEST(ThrottleSummary, APercentageNeverReadsAsTheThresholdItIsBelow) {
  // 1781 / 1980 = 89.95 %: rounded to a whole percent it would read "below 90 %: 90 %".
  const std::vector<trial_telemetry> trials = {trial(1781.0, 0, 0)};
  EXPECT_EQ(describe_throttling(summarise_throttling(trials, 0.9)),
            "1 of 1 trial below 90 % of max SM clock: 1781 MHz, 89.9 %");
}

TEST(ThrottleSummary, AClockBelowTheMaximumNeverReadsAsAHundredPercent) {
  const std::vector<trial_telemetry> trials = {trial(1975.0, 0, r::sw_power_cap),
                                               trial(1980.0, 0, r::sw_power_cap)};
  EXPECT_EQ(describe_clock_events(summarise_throttling(trials, 0.9)),
            "2 of 2 trials: NVML sw_power_cap; SM clock 1975\xE2\x80\x93"
            "1980 MHz, 99.7\xE2\x80\x93"
            "100 % of max");
}

TEST(ThrottleSummary, TheUsersThresholdIsNamed) {
  const std::vector<trial_telemetry> trials = {trial(1965.0, 0, 0, 0.995),
                                               trial(1980.0, 0, 0, 0.995)};
  EXPECT_EQ(describe_throttling(summarise_throttling(trials, 0.995)),
            "1 of 2 trials below 99.5 % of max SM clock: 1965 MHz, 99 %");
}

TEST(ThrottleSummary, SeveralReasonsNameTheirTrialsWhenTheyDiffer) {
  const std::vector<trial_telemetry> trials = {
      trial(1965.0, 0, r::sw_power_cap), trial(1965.0, r::hw_slowdown, r::sw_power_cap),
      trial(1980.0, r::gpu_idle, r::applications_clocks_setting)};
  const throttle_summary s = summarise_throttling(trials, 0.9);
  EXPECT_EQ(s.trials_with_slowdown_reasons, 2);
  EXPECT_EQ(
      describe_clock_events(s),
      "2 of 3 trials: NVML sw_power_cap (2), hw_slowdown (1); SM clock 1965 MHz, 99 % of max");
}

TEST(ThrottleSummary, IdleAndConfigurationReasonsAreNotSlowdowns) {
  const std::vector<trial_telemetry> trials(
      2, trial(1980.0, r::gpu_idle, r::applications_clocks_setting | r::sync_boost));
  EXPECT_EQ(describe_clock_events(summarise_throttling(trials, 0.9)), "");
}

TEST(ThrottleSummary, WithoutTheOnGpuClockNothingIsJudgedAndNvmlIsStillReported) {
  const std::vector<trial_telemetry> trials(4, trial(std::nullopt, 0, r::hw_thermal_slowdown));
  const throttle_summary s = summarise_throttling(trials, 0.9);
  EXPECT_EQ(s.judged_trials, 0);
  EXPECT_EQ(describe_throttling(s), "");
  EXPECT_EQ(describe_clock_events(s),
            "4 of 4 trials: NVML hw_thermal_slowdown; SM clock not measured on the GPU");
}

} // namespace
} // namespace kerntime::detail
