// summarise() closes the result: the samples' statistics and everything the runner knows beside
// them, fed as real data (trials of spans, an energy window, a counters block) with no GPU.

#include "measure/summarise_measurement.hpp"

#include <gtest/gtest.h>

#include "result/trials_of.hpp"

namespace kerntime::detail {
namespace {

runner_facts cupti_facts() {
  runner_facts facts;
  facts.device.name = "NVIDIA H200";
  facts.backend = timing_backend::cupti;
  facts.cupti = cupti_mode::subscribed;
  facts.flush_bytes = 200 << 20;
  facts.warmup = {.iterations = 3, .settled = true};
  return facts;
}

TEST(summarise_measurement, the_runner_facts_are_in_the_result_beside_the_statistics) {
  const measurement_result r =
      summarise(trials_of({{1000, 1032, 1064}, {1032, 1064, 1096}}), protocol{}, cupti_facts());
  EXPECT_DOUBLE_EQ(r.latency_ns, 1048);
  EXPECT_EQ(r.device.name, "NVIDIA H200");
  EXPECT_EQ(r.backend, timing_backend::cupti);
  EXPECT_EQ(r.cupti, cupti_mode::subscribed);
  EXPECT_EQ(r.flush_bytes, std::size_t{200} << 20);
  EXPECT_EQ(r.stopping.warmup_iterations, 3);
  EXPECT_TRUE(r.stopping.warmup_settled);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_FALSE(r.energy.available); // no window was read
}

TEST(summarise_measurement, a_fallback_is_said_first_and_an_unsettled_warmup_after) {
  auto facts = cupti_facts();
  facts.backend = timing_backend::events;
  facts.backend_reason = "CUPTI is held by another profiler";
  facts.fallback_warning = "timed with CUDA events: CUPTI is held by another profiler";
  facts.warmup = {.iterations = 1000, .settled = false};
  facts.telemetry = device_telemetry{};
  facts.telemetry_warnings = {"NVML not found"};
  auto timed = trials_of({{1000, 1032}});
  timed.warnings.push_back("a timer's own warning");
  const measurement_result r = summarise(std::move(timed), protocol{}, facts);
  ASSERT_EQ(r.warnings.size(), 4U);
  EXPECT_EQ(r.warnings[0], *facts.fallback_warning);
  EXPECT_EQ(r.warnings[1], "a timer's own warning");
  EXPECT_NE(r.warnings[2].find("had not settled after 1000 iterations"), std::string::npos);
  EXPECT_EQ(r.warnings[3], "NVML not found");
}

TEST(summarise_measurement, the_energy_window_becomes_joules_per_iteration) {
  auto facts = cupti_facts();
  facts.telemetry = device_telemetry{};
  facts.telemetry->available = true;
  facts.energy = energy_window{.mj_before = 1'000'000,
                               .mj_after = 1'000'000 + 6'000,
                               .seconds = 2.0,
                               .min_seconds = 1.0,
                               .iterations = 600};
  const measurement_result r = summarise(trials_of({{1000, 1032}}), protocol{}, facts);
  ASSERT_TRUE(r.energy.available) << r.energy.unavailable_reason;
  ASSERT_TRUE(r.energy.joules_per_iteration.has_value());
  EXPECT_DOUBLE_EQ(*r.energy.joules_per_iteration, 6.0 / 600);
  // Without NVML's device readings there is no energy, and the result says why.
  facts.telemetry.reset();
  const measurement_result without = summarise(trials_of({{1000, 1032}}), protocol{}, facts);
  EXPECT_FALSE(without.energy.available);
  EXPECT_NE(without.energy.unavailable_reason.find("NVML is not available"), std::string::npos);
}

TEST(summarise_measurement, counters_asked_for_under_an_events_fallback_say_why_there_are_none) {
  protocol p;
  p.counters = true;
  auto facts = cupti_facts();
  facts.backend = timing_backend::events;
  facts.backend_reason = "CUPTI could not be attached";
  const measurement_result fell_back = summarise(trials_of({{1000}}), p, facts);
  EXPECT_EQ(fell_back.counters.status, counters_status::unavailable);
  EXPECT_NE(fell_back.counters.reason.find("timing fell back to CUDA events (CUPTI could not be "
                                           "attached)"),
            std::string::npos)
      << fell_back.counters.reason;
  facts.counters_unavailable = "a profiler holds CUPTI";
  EXPECT_EQ(summarise(trials_of({{1000}}), p, facts).counters.reason, "a profiler holds CUPTI");
}

TEST(summarise_measurement, measured_counters_get_their_derived_values_from_the_latency) {
  auto timed = trials_of({{2000, 2000}});
  timed.counters.status = counters_status::measured;
  timed.counters.metrics_total = {{"dram__bytes_read.sum", 4.0e6}, {"dram__bytes_write.sum", 0}};
  const measurement_result r = summarise(std::move(timed), protocol{}, cupti_facts());
  ASSERT_EQ(r.counters.status, counters_status::measured);
  ASSERT_TRUE(r.counters.derived.dram_bytes.has_value());
  EXPECT_DOUBLE_EQ(*r.counters.derived.dram_bytes, 4.0e6);
}

} // namespace
} // namespace kerntime::detail
