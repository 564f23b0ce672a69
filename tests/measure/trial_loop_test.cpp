// The trial loop with a real telemetry probe over an NVML stand-in that reports power capping
// and a stand-in for the on-GPU clock: throttled trials are re-run only when asked, at most
// max_throttle_reruns times after the recovery pause (injected here, so the test does not
// sleep), and said once per state.

#include "measure/trial_loop.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "telemetry/clock_event_reasons.hpp"
#include "telemetry/fake_nvml.hpp"

namespace kerntime::detail {
namespace {

struct loop_run {
  int trials_run = 0;
  int dropped = 0;
  int probe_calls = 0;
  std::vector<std::chrono::milliseconds> pauses;
  std::vector<double> medians; // what the stopping rule reads
  kept_trials out;
};

// `measured_sm_clock_mhz`: every trial's on-GPU clock; the H200 reads 1965 of 1980 MHz under its
// power cap, which is not throttling.
loop_run run_loop(const protocol& p, std::uint64_t reasons,
                  const std::function<double(int)>& trial_median = {},
                  double measured_sm_clock_mhz = 1965) {
  testing::reset_fake_nvml();
  testing::fake_nvml().clock_event_reasons = reasons;
  const nvml_api api = testing::fake_nvml_api();
  probe_setup setup;
  setup.nvml = &api;
  setup.pci_bus_id = "00000000:19:00.0";
  setup.clock_check = false;
  setup.measured_sm_clock = [measured_sm_clock_mhz] { return measured_sm_clock_mhz; };
  const auto probe = telemetry_probe::open(setup, p);

  const work_function work = [](cudaStream_t, int) {};
  iteration_context context{work, p, nullptr, nullptr, probe.get(), nullptr};
  loop_run run;
  context.recovery_pause = [&](std::chrono::milliseconds pause) { run.pauses.push_back(pause); };
  run.out = run_trials(
      context,
      [&](int) {
        ++run.trials_run;
        if (trial_median) {
          run.medians.push_back(trial_median(run.trials_run));
        }
        return run.trials_run;
      },
      [&](int) {
        ++run.dropped;
        run.medians.pop_back();
      },
      [&](const auto& probe_call) {
        ++run.probe_calls;
        probe_call();
      },
      [&] { return precision_of(run.medians); });
  return run;
}

std::size_t count_containing(const std::vector<std::string>& lines, const std::string& text) {
  std::size_t n = 0;
  for (const auto& line : lines) {
    n += line.find(text) != std::string::npos ? 1 : 0;
  }
  return n;
}

TEST(trial_loop, throttled_trials_are_kept_and_said_unless_discarding_is_asked) {
  protocol p;
  p.trials = 4;
  const loop_run run = run_loop(p, clock_event_reason::sw_power_cap, {}, 1680);
  EXPECT_EQ(run.trials_run, 4);
  EXPECT_EQ(run.dropped, 0);
  EXPECT_TRUE(run.pauses.empty());
  EXPECT_EQ(run.probe_calls, 8); // before and after every trial, each wrapped for tagging
  ASSERT_EQ(run.out.telemetry.size(), 4U);
  EXPECT_TRUE(run.out.telemetry[0].throttled);
  EXPECT_EQ(run.out.warnings,
            std::vector<std::string>{"throttled: 4 of 4 trials below 90 % of max SM clock: 1680 "
                                     "MHz, 85 %; their samples are kept"});
}

TEST(trial_loop, discarding_re_runs_at_most_the_bound_then_keeps_and_says_so) {
  protocol p;
  p.trials = 4;
  p.discard_throttled = true;
  const loop_run run = run_loop(p, clock_event_reason::sw_power_cap, {}, 1680);
  EXPECT_EQ(run.trials_run, 4 + max_throttle_reruns);
  EXPECT_EQ(run.dropped, max_throttle_reruns);
  EXPECT_EQ(run.pauses,
            std::vector<std::chrono::milliseconds>(max_throttle_reruns, throttle_recovery));
  EXPECT_EQ(run.out.telemetry.size(), 4U);
  EXPECT_EQ(count_containing(run.out.warnings, "re-ran it"),
            static_cast<std::size_t>(max_throttle_reruns));
  EXPECT_EQ(count_containing(run.out.warnings, "4 of 4 trials below 90 %"), 1U);
}

TEST(trial_loop, trials_that_are_not_throttled_run_once_without_warnings) {
  protocol p;
  p.trials = 3;
  p.discard_throttled = true;
  // Neither idle nor NVML's power cap at 1965 of 1980 MHz is throttling.
  const loop_run run = run_loop(p, clock_event_reason::gpu_idle | clock_event_reason::sw_power_cap);
  EXPECT_EQ(run.trials_run, 3);
  EXPECT_EQ(run.dropped, 0);
  EXPECT_TRUE(run.out.warnings.empty());
  ASSERT_EQ(run.out.telemetry.size(), 3U);
  EXPECT_FALSE(run.out.telemetry[2].throttled);
}

// Five trials, then more until the median's interval is within ±0.5 % (at most `max_trials`), on
// trial medians that alternate between `high` and `low`.
loop_run run_to_half_a_percent(double high, double low, int max_trials = protocol{}.max_trials) {
  protocol p;
  p.trials = 5;
  p.stop_at_ci = 0.5;
  p.max_trials = max_trials;
  return run_loop(p, clock_event_reason::gpu_idle,
                  [high, low](int trial) { return trial % 2 == 0 ? high : low; });
}

TEST(trial_loop, stop_at_ci_adds_trials_until_the_interval_of_the_median_is_within_target) {
  // Trial medians alternate 1000 ± 3 ns (±0.3 %): six trials give an interval of [997, 1003].
  const loop_run run = run_to_half_a_percent(1003.0, 997.0);
  EXPECT_EQ(run.trials_run, 6);
  EXPECT_EQ(run.out.stopped_because, stop_reason::interval_reached);
  EXPECT_EQ(run.out.telemetry.size(), 6U);
}

TEST(trial_loop, stop_at_ci_ends_at_max_trials_when_the_noise_is_too_wide) {
  const loop_run run = run_to_half_a_percent(1100.0, 900.0, /*max_trials=*/12);
  EXPECT_EQ(run.trials_run, 12);
  EXPECT_EQ(run.out.stopped_because, stop_reason::max_trials);
}

TEST(trial_loop, the_fixed_protocol_runs_exactly_its_trials_and_says_so) {
  protocol p;
  p.trials = 7;
  const loop_run run = run_loop(p, clock_event_reason::gpu_idle);
  EXPECT_EQ(run.trials_run, 7);
  EXPECT_EQ(run.out.stopped_because, stop_reason::trial_count);
}

} // namespace
} // namespace kerntime::detail
