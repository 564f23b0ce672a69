// The adaptive rules on a real GPU: stop_at_ci adds trials until the 95 % interval of the median
// of a 20 µs spin kernel is within ±0.5 % (and says how many it took), under both timers; its
// bounds end a run whose target is out of reach, with a warning; warmup auto settles on a steady
// kernel and reports the iterations it ran.

#include <kerntime/measure.hpp>

#include <chrono>
#include <cstdint>
#include <string>

#include "gpu_test.hpp"
#include "spin_kernel.hpp"

namespace kerntime::gpu_tests {
namespace {

using std::chrono::microseconds;

measurement_result spin_20us(const protocol& p) {
  return measure([](cudaStream_t stream, int) { testkit::launch_spin(stream, microseconds(20)); },
                 p);
}

bool has_warning_containing(const measurement_result& r, const std::string& text) {
  for (const auto& w : r.warnings) {
    if (w.find(text) != std::string::npos) {
      return true;
    }
  }
  return false;
}

class stop_at_ci : public gpu_test, public ::testing::WithParamInterface<backend_request> {};

TEST_P(stop_at_ci, reaches_half_a_percent_on_a_20us_kernel_and_says_how_many_trials_it_took) {
  protocol p;
  p.backend = GetParam();
  p.stop_at_ci = 0.5;
  const measurement_result r = spin_20us(p);
  EXPECT_EQ(r.stopping.reason, stop_reason::interval_reached);
  EXPECT_GE(r.stopping.trials, 6); // 95 % needs six trials
  EXPECT_EQ(static_cast<std::size_t>(r.stopping.trials), r.trials.size());
  ASSERT_TRUE(r.stopping.median_interval.has_value());
  ASSERT_TRUE(r.stopping.half_width.has_value());
  EXPECT_LE(*r.stopping.half_width, 0.005);
  EXPECT_GE(r.stopping.median_interval->confidence, 0.95);
  EXPECT_LE(r.stopping.median_interval->low, r.stopping.median_interval->high);
  // The interval is about the same quantity as the headline: within a per cent of it.
  EXPECT_NEAR(r.stopping.median_interval->low, r.latency_ns, 0.01 * r.latency_ns);
  EXPECT_FALSE(has_warning_containing(r, "stop_at_ci"));
  RecordProperty("trials", std::to_string(r.stopping.trials));
  RecordProperty("half_width_percent", std::to_string(*r.stopping.half_width * 100));
  RecordProperty("wall_seconds", std::to_string(r.wall_seconds));
}

INSTANTIATE_TEST_SUITE_P(timers, stop_at_ci,
                         ::testing::Values(backend_request::cupti, backend_request::events),
                         [](const auto& info) { return std::string(to_string(info.param)); });

// A spin of 20-30 µs drawn afresh for every call: each trial's median moves by about 2 %, so a
// ±0.5 % target (well above the timer's 32 ns step) is out of reach of a few trials.
measurement_result noisy_spin(const protocol& p) {
  std::uint32_t state = 12345;
  return measure(
      [&state](cudaStream_t stream, int) {
        state = state * 1664525U + 1013904223U; // a fixed-seed LCG: the same draws every run
        testkit::launch_spin(stream, microseconds(20 + (state >> 16) % 11));
      },
      p);
}

TEST_F(gpu_test, stop_at_ci_ends_at_max_trials_when_the_target_is_out_of_reach_and_warns) {
  protocol p;
  p.backend = backend_request::cupti;
  p.stop_at_ci = 0.5;
  p.max_trials = 8;
  const measurement_result r = noisy_spin(p);
  EXPECT_EQ(r.stopping.reason, stop_reason::max_trials);
  EXPECT_EQ(r.stopping.trials, 8);
  EXPECT_EQ(r.trials.size(), 8U);
  EXPECT_TRUE(has_warning_containing(r, "stop_at_ci: the interval of the median reached"));
}

TEST_F(gpu_test, stop_at_ci_ends_at_max_time_after_the_minimum_trials) {
  protocol p;
  p.backend = backend_request::cupti;
  p.stop_at_ci = 0.5;
  p.max_time_s = 0.001; // over before the first trial ends: only the minimum trials run
  const measurement_result r = noisy_spin(p);
  EXPECT_EQ(r.stopping.reason, stop_reason::max_time);
  EXPECT_EQ(r.stopping.trials, p.trials);
}

// ±1 ppm of a 20 µs kernel is far below CUPTI's 32 ns step (0.16 %): no number of trials can
// reach it, so the rule stops after the minimum trials and says why, naming the step.
TEST_F(gpu_test,
       stop_at_ci_below_the_timer_step_stops_after_the_minimum_trials_and_names_the_step) {
  protocol p;
  p.backend = backend_request::cupti;
  p.stop_at_ci = 0.0001;
  const measurement_result r = spin_20us(p);
  EXPECT_EQ(r.stopping.reason, stop_reason::timer_resolution);
  EXPECT_EQ(r.stopping.trials, p.trials);
  EXPECT_NEAR(r.timer_resolution_ns, 32, 1.5);
  EXPECT_TRUE(has_warning_containing(r, "stop_at_ci: the timer steps by 32 ns"));
}

TEST_F(gpu_test, warmup_auto_settles_on_a_steady_kernel_and_counts_its_iterations) {
  protocol p;
  p.warmup_auto = true;
  const measurement_result r = spin_20us(p);
  EXPECT_TRUE(r.stopping.warmup_settled);
  // The minimum, then at least two windows of three batches of ten.
  EXPECT_GE(r.stopping.warmup_iterations, p.warmup + 60);
  EXPECT_EQ(r.stopping.reason, stop_reason::trial_count);
  EXPECT_FALSE(has_warning_containing(r, "warmup auto"));
  RecordProperty("warmup_iterations", std::to_string(r.stopping.warmup_iterations));
}

} // namespace
} // namespace kerntime::gpu_tests
