// The timer's step read off durations: real H200 spans (CUPTI converts its 32 ns ticks to host
// nanoseconds, so neighbours sit 31-33 ns apart), a lattice with jitter, and the cases that give
// no step.

#include "result/timer_resolution.hpp"

#include <gtest/gtest.h>

#include <random>

#include "kerntime/report.hpp"
#include "result/summarise.hpp"

namespace kerntime::detail {
namespace {

TEST(timer_resolution, every_cupti_state_of_a_real_h200_run_steps_by_32_ns) {
  const result_set set =
      read_result_set(std::string(KERNTIME_REPORT_DATA_DIR) + "/h200-suite.json");
  int states = 0;
  for (const auto& run : set.runs) {
    if (!run.result || run.result->backend != timing_backend::cupti) {
      continue;
    }
    ++states;
    EXPECT_NEAR(timer_step_ns(all_spans(run.result->trials)), 32.0, 0.5) << run.state_name;
  }
  EXPECT_GE(states, 20);
}

TEST(timer_resolution, a_jittered_lattice_gives_its_spacing) {
  std::mt19937 random(7);
  std::uniform_int_distribution<int> point(0, 20);
  std::uniform_int_distribution<int> jitter(-1, 1);
  std::vector<double> durations;
  for (int i = 0; i < 500; ++i) {
    durations.push_back(5000 + (32 * point(random)) + jitter(random));
  }
  EXPECT_NEAR(timer_step_ns(durations), 32.0, 0.2);
}

TEST(timer_resolution, one_value_throughout_or_a_fine_timer_gives_no_step) {
  EXPECT_EQ(timer_step_ns({}), 0);
  EXPECT_EQ(timer_step_ns({1600, 1600, 1601, 1599}), 0);
  std::mt19937 random(3);
  std::uniform_real_distribution<double> fine(1000, 1100);
  std::vector<double> durations;
  for (int i = 0; i < 1000; ++i) {
    durations.push_back(fine(random));
  }
  EXPECT_EQ(timer_step_ns(durations), 0);
}

} // namespace
} // namespace kerntime::detail
