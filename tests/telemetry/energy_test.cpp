// Energy per trial from NVML's total-energy counter, against the fake driver: the probe reads the
// counter either side of each trial, summarise_energy turns the readings into joules per
// iteration and average watts, and every way of having no reading says why (never a zero).
#include <gtest/gtest.h>

#include "fake_nvml.hpp"
#include "result/energy.hpp"
#include "telemetry/telemetry_probe.hpp"

namespace kerntime::detail {
namespace {

using testing::fake_nvml;

class energy_test : public ::testing::Test {
protected:
  void SetUp() override {
    testing::reset_fake_nvml();
    api_ = testing::fake_nvml_api();
  }

  std::unique_ptr<telemetry_probe> open_fake(const protocol& p = {}) {
    probe_setup setup;
    setup.nvml = &api_;
    setup.pci_bus_id = "00000000:19:00.0";
    setup.clock_check = false;
    return telemetry_probe::open(setup, p);
  }

  nvml_api api_;
};

trial_result trial_of(std::size_t iterations, std::uint64_t before_mj, std::uint64_t after_mj,
                      double seconds) {
  trial_result t;
  t.iterations.resize(iterations);
  t.telemetry.energy_mj_before = before_mj;
  t.telemetry.energy_mj_after = after_mj;
  t.telemetry.energy_interval_s = seconds;
  return t;
}

device_telemetry nvml_present() {
  device_telemetry d;
  d.available = true;
  return d;
}

TEST_F(energy_test, TheProbeReadsTheCounterEitherSideOfATrial) {
  const auto probe = open_fake();
  fake_nvml().energy_mj = 5'000'000;
  fake_nvml().energy_step_mj = 1'234; // the counter moves 1.234 J between the two reads
  probe->before_trial(nullptr);
  const trial_telemetry t = probe->after_trial(nullptr);
  ASSERT_TRUE(t.energy_mj_before && t.energy_mj_after && t.energy_interval_s);
  EXPECT_EQ(*t.energy_mj_before, 5'000'000u);
  EXPECT_EQ(*t.energy_mj_after, 5'001'234u);
  EXPECT_GE(*t.energy_interval_s, 0.0);
}

TEST_F(energy_test, AGpuWithoutTheCounterLeavesTheReadingsEmptyWithoutAWarning) {
  fake_nvml().energy_result = nvml_error_not_supported;
  const auto probe = open_fake();
  probe->before_trial(nullptr);
  const trial_telemetry t = probe->after_trial(nullptr);
  EXPECT_FALSE(t.energy_mj_before);
  EXPECT_FALSE(t.energy_mj_after);
  EXPECT_FALSE(t.energy_interval_s);
  EXPECT_TRUE(probe->warnings().empty());
  std::vector<trial_result> trials{trial_result{{{1, 1}}, t}};
  const energy_summary e = summarise_energy(trials, protocol{}, probe->device());
  EXPECT_FALSE(e.available);
  EXPECT_FALSE(e.joules_per_iteration);
  EXPECT_FALSE(e.average_watts);
  EXPECT_NE(e.unavailable_reason.find("nvmlDeviceGetTotalEnergyConsumption"), std::string::npos);
}

TEST(summarise_energy_test, JoulesPerIterationAndWattsOverTheKeptTrials) {
  // Two trials of 50 iterations: 30 J in 0.1 s and 32 J in 0.1 s.
  // Joules per iteration: 62 J / 100 = 0.62 J; average power: 62 J / 0.2 s = 310 W.
  const std::vector<trial_result> trials{trial_of(50, 1'000'000, 1'030'000, 0.1),
                                         trial_of(50, 1'030'500, 1'062'500, 0.1)};
  const energy_summary e = summarise_energy(trials, protocol{}, nvml_present());
  ASSERT_TRUE(e.available) << e.unavailable_reason;
  EXPECT_DOUBLE_EQ(*e.joules_per_iteration, 0.62);
  EXPECT_DOUBLE_EQ(*e.average_watts, 310.0);
  EXPECT_EQ(e.unavailable_reason, "");
}

TEST(summarise_energy_test, ATrialWhoseCounterWentBackwardsIsLeftOut) {
  const std::vector<trial_result> trials{trial_of(10, 2'000, 1'000, 0.1),
                                         trial_of(10, 1'000, 3'000, 0.01)};
  const energy_summary e = summarise_energy(trials, protocol{}, nvml_present());
  ASSERT_TRUE(e.available);
  EXPECT_DOUBLE_EQ(*e.joules_per_iteration, 0.2); // 2 J over 10 iterations
  EXPECT_DOUBLE_EQ(*e.average_watts, 200.0);      // 2 J in 10 ms
  const energy_summary none =
      summarise_energy({trial_of(10, 2'000, 1'000, 0.1)}, protocol{}, nvml_present());
  EXPECT_FALSE(none.available);
  EXPECT_NE(none.unavailable_reason.find("went backwards"), std::string::npos);
}

TEST(summarise_energy_test, ACounterThatDidNotAdvanceIsNoReadingNotZero) {
  const energy_summary e =
      summarise_energy({trial_of(10, 5'000, 5'000, 0.002)}, protocol{}, nvml_present());
  EXPECT_FALSE(e.available);
  EXPECT_FALSE(e.joules_per_iteration);
  EXPECT_NE(e.unavailable_reason.find("did not advance"), std::string::npos);
  EXPECT_NE(e.unavailable_reason.find("--repeat"), std::string::npos);
}

TEST(summarise_energy_test, TelemetryOffOrNoNvmlSaysWhy) {
  protocol off;
  off.telemetry = false;
  const std::vector<trial_result> trials{trial_of(10, 0, 1'000, 0.1)};
  EXPECT_NE(summarise_energy(trials, off, nvml_present()).unavailable_reason.find("--no-telemetry"),
            std::string::npos);
  device_telemetry missing;
  missing.unavailable_reason = "libnvidia-ml.so.1: cannot open shared object file";
  const energy_summary e = summarise_energy(trials, protocol{}, missing);
  EXPECT_FALSE(e.available);
  EXPECT_EQ(e.unavailable_reason,
            "NVML is not available: libnvidia-ml.so.1: cannot open shared object file");
}

} // namespace
} // namespace kerntime::detail
