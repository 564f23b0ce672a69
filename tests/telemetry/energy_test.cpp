// Energy per measurement from NVML's total-energy counter, against the fake driver: the probe reads
// the counter before the first trial and after the last (only when the window is long enough),
// summarise_energy turns the window into joules per iteration and average watts, and every way of
// having no reading says why (never a zero).
#include <gtest/gtest.h>

#include <chrono>

#include "fake_nvml.hpp"
#include "telemetry/energy_summary.hpp"
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

  std::unique_ptr<telemetry_probe> open_fake(std::chrono::duration<double> min_window) {
    probe_setup setup;
    setup.nvml = &api_;
    setup.pci_bus_id = "00000000:19:00.0";
    setup.clock_check = false;
    setup.energy_min_window = min_window;
    return telemetry_probe::open(setup, protocol{});
  }

  nvml_api api_;
};

energy_window window_of(std::size_t iterations, std::uint64_t before_mj,
                        std::optional<std::uint64_t> after_mj, double seconds) {
  energy_window w;
  w.mj_before = before_mj;
  w.mj_after = after_mj;
  w.seconds = seconds;
  w.iterations = iterations;
  return w;
}

device_telemetry nvml_present() {
  device_telemetry d;
  d.available = true;
  return d;
}

TEST_F(energy_test, TheCounterIsReadOnceBeforeTheFirstTrialAndOnceAfterTheLast) {
  const auto probe = open_fake(std::chrono::duration<double>{0});
  fake_nvml().energy_mj = 5'000'000;
  fake_nvml().energy_step_mj = 1'234; // the counter moves 1.234 J per read
  const long reads_before = fake_nvml().calls;
  for (int trial = 0; trial < 3; ++trial) {
    probe->before_trial(nullptr);
    (void)probe->after_trial(nullptr);
  }
  EXPECT_FALSE(probe->energy()) << "the window is open until closed";
  probe->close_energy_window(150);
  ASSERT_TRUE(probe->energy());
  const energy_window& w = *probe->energy();
  ASSERT_TRUE(w.mj_before && w.mj_after);
  EXPECT_EQ(*w.mj_before, 5'000'000u);
  EXPECT_EQ(*w.mj_after, 5'001'234u); // one read in between: no read per trial
  EXPECT_EQ(w.iterations, 150u);
  EXPECT_GE(w.seconds, 0.0);
  // Three trials of NVML snapshots (5 getters before, 5 after) and two counter reads.
  EXPECT_EQ(fake_nvml().calls - reads_before, 3 * 10 + 2);
}

TEST_F(energy_test, TheSystemProbeReadsTheCounterAtTheStartInTheBackground) {
  probe_setup setup;
  setup.nvml = &api_;
  setup.pci_bus_id = "00000000:19:00.0";
  setup.clock_check = false;
  setup.energy_min_window = std::chrono::duration<double>{0};
  setup.energy_in_background = true;
  const auto probe = telemetry_probe::open(setup, protocol{});
  fake_nvml().energy_mj = 7'000'000;
  fake_nvml().energy_step_mj = 500;
  for (int trial = 0; trial < 2; ++trial) {
    probe->before_trial(nullptr);
    (void)probe->after_trial(nullptr);
  }
  probe->close_energy_window(100);
  ASSERT_TRUE(probe->energy());
  ASSERT_TRUE(probe->energy()->mj_before && probe->energy()->mj_after);
  EXPECT_EQ(*probe->energy()->mj_before, 7'000'000u);
  EXPECT_EQ(*probe->energy()->mj_after, 7'000'500u); // the start's read came first
  EXPECT_TRUE(probe->warnings().empty());
}

TEST_F(energy_test, AShortWindowIsNotReadAtItsEnd) {
  const auto probe = open_fake(std::chrono::hours{1});
  probe->before_trial(nullptr);
  (void)probe->after_trial(nullptr);
  const long calls = fake_nvml().calls;
  probe->close_energy_window(50);
  EXPECT_EQ(fake_nvml().calls, calls) << "a window shorter than the minimum costs no read";
  ASSERT_TRUE(probe->energy());
  EXPECT_TRUE(probe->energy()->mj_before);
  EXPECT_FALSE(probe->energy()->mj_after);
  const energy_summary e = summarise_energy(probe->energy(), protocol{}, probe->device());
  EXPECT_FALSE(e.available);
  EXPECT_FALSE(e.joules_per_iteration);
  EXPECT_NE(e.unavailable_reason.find("--repeat"), std::string::npos) << e.unavailable_reason;
}

TEST_F(energy_test, AGpuWithoutTheCounterSaysSoWithoutAWarning) {
  fake_nvml().energy_result = nvml_error_not_supported;
  const auto probe = open_fake(std::chrono::duration<double>{0});
  probe->before_trial(nullptr);
  (void)probe->after_trial(nullptr);
  probe->close_energy_window(10);
  ASSERT_TRUE(probe->energy());
  EXPECT_FALSE(probe->energy()->mj_before);
  EXPECT_FALSE(probe->energy()->mj_after);
  EXPECT_TRUE(probe->warnings().empty());
  const energy_summary e = summarise_energy(probe->energy(), protocol{}, probe->device());
  EXPECT_FALSE(e.available);
  EXPECT_FALSE(e.joules_per_iteration);
  EXPECT_FALSE(e.average_watts);
  EXPECT_NE(e.unavailable_reason.find("nvmlDeviceGetTotalEnergyConsumption"), std::string::npos);
}

TEST_F(energy_test, ALostGpuAtTheWindowsEndWarnsAndSaysWhy) {
  const auto probe = open_fake(std::chrono::duration<double>{0});
  probe->before_trial(nullptr);
  (void)probe->after_trial(nullptr);
  fake_nvml().calls_before_failure = fake_nvml().calls; // the GPU is lost before the last read
  probe->close_energy_window(10);
  ASSERT_TRUE(probe->energy());
  EXPECT_TRUE(probe->energy()->mj_before);
  EXPECT_FALSE(probe->energy()->mj_after);
  ASSERT_EQ(probe->warnings().size(), 1U);
  EXPECT_NE(probe->warnings()[0].find("nvmlDeviceGetTotalEnergyConsumption"), std::string::npos);
  const energy_summary e = summarise_energy(probe->energy(), protocol{}, probe->device());
  EXPECT_FALSE(e.available);
  EXPECT_NE(e.unavailable_reason.find("could not be read after the trials"), std::string::npos);
}

TEST(summarise_energy_test, JoulesPerIterationAndWattsOverTheWindow) {
  // 500 iterations in 2.5 s: 1,550 J. Joules per iteration: 1550 / 500 = 3.1 J; 1550 / 2.5 = 620 W.
  const energy_summary e =
      summarise_energy(window_of(500, 1'000'000, 2'550'000, 2.5), protocol{}, nvml_present());
  ASSERT_TRUE(e.available) << e.unavailable_reason;
  EXPECT_DOUBLE_EQ(*e.joules_per_iteration, 3.1);
  EXPECT_DOUBLE_EQ(*e.average_watts, 620.0);
  EXPECT_DOUBLE_EQ(*e.window_s, 2.5);
  EXPECT_EQ(e.window_iterations, 500u);
  EXPECT_EQ(e.unavailable_reason, "");
}

TEST(summarise_energy_test, AWindowShorterThanTheMinimumSuggestsRepeatsThatReachIt) {
  // 50 repeats lasted 0.04 s in all; 2 s needs 50 x 2 / 0.04 x 1.2 = 3000 repeats.
  const energy_summary e =
      summarise_energy(window_of(250, 1'000, std::nullopt, 0.04), protocol{}, nvml_present());
  EXPECT_FALSE(e.available);
  EXPECT_FALSE(e.joules_per_iteration);
  EXPECT_EQ(e.unavailable_reason,
            "the trials lasted 0.040 s; NVML's energy counter moves in steps (about every 0.1 s "
            "on an H200), so kerntime reads energy over at least 2 s of trials; measure longer, "
            "e.g. --repeat 3000");
  EXPECT_DOUBLE_EQ(*e.window_s, 0.04);
}

TEST(summarise_energy_test, ACounterThatWentBackwardsOrStoodStillIsNoReadingNotZero) {
  const energy_summary backwards =
      summarise_energy(window_of(10, 2'000, 1'000, 3.0), protocol{}, nvml_present());
  EXPECT_FALSE(backwards.available);
  EXPECT_NE(backwards.unavailable_reason.find("went backwards"), std::string::npos);
  const energy_summary still =
      summarise_energy(window_of(10, 5'000, 5'000, 3.0), protocol{}, nvml_present());
  EXPECT_FALSE(still.available);
  EXPECT_FALSE(still.joules_per_iteration);
  EXPECT_NE(still.unavailable_reason.find("did not advance"), std::string::npos);
}

TEST(summarise_energy_test, AFailedReadAtTheEndSaysSo) {
  const energy_summary e =
      summarise_energy(window_of(10, 5'000, std::nullopt, 3.0), protocol{}, nvml_present());
  EXPECT_FALSE(e.available);
  EXPECT_NE(e.unavailable_reason.find("could not be read after the trials"), std::string::npos);
}

TEST(summarise_energy_test, TelemetryOffOrNoNvmlOrNoWindowSaysWhy) {
  protocol off;
  off.telemetry = false;
  const auto window = std::optional<energy_window>(window_of(10, 0, 1'000, 3.0));
  EXPECT_NE(summarise_energy(window, off, nvml_present()).unavailable_reason.find("--no-telemetry"),
            std::string::npos);
  device_telemetry missing;
  missing.unavailable_reason = "libnvidia-ml.so.1: cannot open shared object file";
  const energy_summary e = summarise_energy(window, protocol{}, missing);
  EXPECT_FALSE(e.available);
  EXPECT_EQ(e.unavailable_reason,
            "NVML is not available: libnvidia-ml.so.1: cannot open shared object file");
  EXPECT_NE(summarise_energy(std::nullopt, protocol{}, nvml_present())
                .unavailable_reason.find("nvmlDeviceGetTotalEnergyConsumption"),
            std::string::npos);
}

} // namespace
} // namespace kerntime::detail
