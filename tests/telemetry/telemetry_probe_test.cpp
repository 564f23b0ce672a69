// The probe against a fake driver, and without NVML at all. The on-GPU clock check is switched
// off here (it needs a GPU; telemetry_gpu_test.cpp covers it), and where a test needs a measured
// clock it gives the figure the check would have read, so these tests run the same on a machine
// with or without one.
#include "telemetry/telemetry_probe.hpp"

#include <cstdlib>
#include <functional>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fake_nvml.hpp"

namespace kerntime::detail {
namespace {

using testing::fake_nvml;

constexpr const char* h200_bus_id = "00000000:19:00.0";

class telemetry_probe_test : public ::testing::Test {
protected:
  void SetUp() override {
    testing::reset_fake_nvml();
    api_ = testing::fake_nvml_api();
  }

  // `measured_sm_clock`: what each trial's on-GPU clock check would have read.
  std::unique_ptr<telemetry_probe>
  open_fake(const protocol& p = {},
            std::function<std::optional<double>()> measured_sm_clock = nullptr) {
    probe_setup setup;
    setup.nvml = &api_;
    setup.pci_bus_id = h200_bus_id;
    setup.clock_check = false;
    setup.measured_sm_clock = std::move(measured_sm_clock);
    return telemetry_probe::open(setup, p);
  }

  // One trial with no GPU work: the probe's side of it only.
  static trial_telemetry run_trial(telemetry_probe& probe) {
    probe.before_trial(nullptr);
    return probe.after_trial(nullptr);
  }

  nvml_api api_;
};

TEST_F(telemetry_probe_test, ReadsTheDeviceOnce) {
  const auto probe = open_fake();
  const device_telemetry& d = probe->device();
  EXPECT_TRUE(d.available);
  EXPECT_EQ(d.unavailable_reason, "");
  EXPECT_EQ(fake_nvml().looked_up_pci_bus_id, h200_bus_id);
  EXPECT_EQ(d.pci_bus_id, h200_bus_id);
  EXPECT_EQ(d.name, "NVIDIA H200");
  EXPECT_EQ(d.uuid, "GPU-5f1c2b1e-8d7a-4c1e-9f00-0123456789ab");
  EXPECT_EQ(d.driver_version, "580.82.07");
  EXPECT_EQ(d.max_sm_clock_mhz, 1980U);
  EXPECT_EQ(d.max_memory_clock_mhz, 3201U);
  EXPECT_EQ(d.application_sm_clock_mhz, 1980U);
  EXPECT_EQ(d.application_memory_clock_mhz, 3201U);
  EXPECT_EQ(d.power_limit_w, 700.0);
  EXPECT_EQ(d.clocks_locked, true);
  EXPECT_TRUE(probe->warnings().empty()) << probe->warnings().front();
}

TEST_F(telemetry_probe_test, SnapshotsBeforeAndAfterEachTrial) {
  const auto probe = open_fake();
  fake_nvml().temperature_c = 44;
  probe->before_trial(nullptr);
  fake_nvml().temperature_c = 47;
  fake_nvml().power_mw = 612'500;
  const trial_telemetry t = probe->after_trial(nullptr);
  ASSERT_TRUE(t.before);
  ASSERT_TRUE(t.after);
  EXPECT_EQ(t.before->sm_clock_mhz, 1980U);
  EXPECT_EQ(t.before->memory_clock_mhz, 3201U);
  EXPECT_EQ(t.before->power_w, 351.25);
  EXPECT_EQ(t.before->temperature_c, 44U);
  EXPECT_EQ(t.after->temperature_c, 47U);
  EXPECT_EQ(t.after->power_w, 612.5);
  EXPECT_EQ(t.after->clock_event_reasons, 0U);
  EXPECT_TRUE(t.after->clock_event_names.empty());
  EXPECT_FALSE(t.measured_sm_clock_mhz); // the clock check is off in these tests
  EXPECT_FALSE(t.throttled);
  EXPECT_EQ(t.throttle_reason, "");
}

// The H200 under its power cap: NVML names sw_power_cap while the GPU runs at 1965 of 1980 MHz.
// The reason is kept in the snapshot as information; the clock decides, and it is not throttled.
TEST_F(telemetry_probe_test, PowerCapAtFullClockIsInformationNotAVerdict) {
  const auto probe = open_fake({}, [] { return 1965.0; });
  probe->before_trial(nullptr);
  fake_nvml().clock_event_reasons = clock_event_reason::sw_power_cap;
  const trial_telemetry t = probe->after_trial(nullptr);
  EXPECT_FALSE(t.throttled) << t.throttle_reason;
  EXPECT_EQ(t.throttle_reason, "");
  EXPECT_EQ(t.measured_sm_clock_mhz, 1965.0);
  EXPECT_EQ(t.sm_clock_fraction, 1965.0 / 1980.0);
  EXPECT_EQ(t.after->clock_event_names, std::vector<std::string>{"sw_power_cap"});
  EXPECT_EQ(t.before->clock_event_reasons, 0U);
}

TEST_F(telemetry_probe_test, AClockBelowTheThresholdFlagsTheTrialWithOrWithoutNvmlReasons) {
  const auto probe = open_fake({}, [] { return 1680.0; });
  const trial_telemetry quiet = run_trial(*probe); // NVML names no reason at all
  EXPECT_TRUE(quiet.throttled);
  EXPECT_EQ(quiet.throttle_reason, "SM clock 1680 MHz measured on the GPU is 84.8 % of the "
                                   "maximum 1980 MHz (threshold 90 %)");
  fake_nvml().clock_event_reasons = clock_event_reason::sw_power_cap;
  EXPECT_TRUE(run_trial(*probe).throttled);
}

TEST_F(telemetry_probe_test, TheProtocolsThresholdIsTheOneApplied) {
  protocol p;
  p.throttle_threshold = 0.8;
  EXPECT_FALSE(open_fake(p, [] { return 1680.0; })->after_trial(nullptr).throttled);
  p.throttle_threshold = 0.995;
  EXPECT_TRUE(open_fake(p, [] { return 1965.0; })->after_trial(nullptr).throttled);
}

TEST_F(telemetry_probe_test, WithoutAMeasuredClockATrialIsNotJudged) {
  const auto probe = open_fake(); // no on-GPU clock: NVML's reasons alone flag nothing
  fake_nvml().clock_event_reasons = clock_event_reason::hw_thermal_slowdown;
  const trial_telemetry t = run_trial(*probe);
  EXPECT_FALSE(t.throttled);
  EXPECT_FALSE(t.sm_clock_fraction);
  EXPECT_EQ(t.after->clock_event_names, std::vector<std::string>{"hw_thermal_slowdown"});
}

TEST_F(telemetry_probe_test, IdleIsNotThrottling) {
  const auto probe = open_fake();
  fake_nvml().clock_event_reasons =
      clock_event_reason::gpu_idle | clock_event_reason::applications_clocks_setting;
  const trial_telemetry t = run_trial(*probe);
  EXPECT_FALSE(t.throttled) << t.throttle_reason;
  EXPECT_EQ(t.after->clock_event_names,
            (std::vector<std::string>{"gpu_idle", "applications_clocks_setting"}));
}

TEST_F(telemetry_probe_test, ClocksThatStrayAreNotLocked) {
  const auto probe = open_fake();
  EXPECT_EQ(probe->device().clocks_locked, true);
  run_trial(*probe);
  EXPECT_EQ(probe->device().clocks_locked, true);
  fake_nvml().sm_clock_mhz = 1755;
  run_trial(*probe);
  EXPECT_EQ(probe->device().clocks_locked, false);
}

TEST_F(telemetry_probe_test, IdleClocksAtOpenAreNotLocked) {
  fake_nvml().sm_clock_mhz = 345;
  EXPECT_EQ(open_fake()->device().clocks_locked, false);
}

TEST_F(telemetry_probe_test, FailingMidRunEmptiesFieldsAndWarnsOncePerCall) {
  const auto probe = open_fake();
  ASSERT_TRUE(probe->warnings().empty());
  // The before snapshot (5 calls), the energy counter as the window opens (1) and the after
  // snapshot's two clocks answer; then the GPU is lost.
  fake_nvml().calls_before_failure = fake_nvml().calls + 8;
  const trial_telemetry first = run_trial(*probe);
  ASSERT_TRUE(first.before);
  EXPECT_EQ(first.before->power_w, 351.25);
  EXPECT_EQ(first.before->clock_event_reasons, 0U);
  ASSERT_TRUE(first.after);
  EXPECT_EQ(first.after->sm_clock_mhz, 1980U);
  EXPECT_EQ(first.after->memory_clock_mhz, 3201U);
  EXPECT_FALSE(first.after->power_w);
  EXPECT_FALSE(first.after->temperature_c);
  EXPECT_FALSE(first.after->clock_event_reasons);
  EXPECT_TRUE(first.after->clock_event_names.empty());
  EXPECT_FALSE(first.throttled);
  ASSERT_EQ(probe->warnings().size(), 3U);
  EXPECT_EQ(probe->warnings()[0], "telemetry: NVML nvmlDeviceGetPowerUsage failed: GPU is lost "
                                  "(NVML error 15); its readings are left empty");
  EXPECT_NE(probe->warnings()[1].find("nvmlDeviceGetTemperature"), std::string::npos);
  EXPECT_NE(probe->warnings()[2].find("nvmlDeviceGetCurrentClocksEventReasons"), std::string::npos);

  const trial_telemetry second = run_trial(*probe);
  ASSERT_TRUE(second.before);
  EXPECT_FALSE(second.before->sm_clock_mhz);
  EXPECT_FALSE(second.after->sm_clock_mhz);
  EXPECT_FALSE(second.after->memory_clock_mhz);
  ASSERT_EQ(probe->warnings().size(), 4U); // the clocks join, once
  EXPECT_NE(probe->warnings()[3].find("nvmlDeviceGetClockInfo"), std::string::npos);
  run_trial(*probe);
  EXPECT_EQ(probe->warnings().size(), 4U);
  EXPECT_TRUE(probe->device().available); // NVML was there; the failures are in warnings
}

// The system probe's setup on the fake driver, with a bus id no probe of this process has
// remembered yet (the remembered devices outlive a test; --gtest_repeat runs it again).
probe_setup remembering_setup(const nvml_api& api) {
  static int next_bus = 0x40;
  probe_setup setup;
  setup.nvml = &api;
  setup.pci_bus_id = fmt::format("00000000:{:02X}:00.0", next_bus++);
  setup.clock_check = false;
  setup.remember_device = true;
  return setup;
}

// The system probe's way: the handle and the static facts once per process and device.
TEST_F(telemetry_probe_test, ARememberedDeviceIsLookedUpAndReadOnce) {
  const probe_setup setup = remembering_setup(api_);
  const auto first = telemetry_probe::open(setup, protocol{});
  EXPECT_EQ(fake_nvml().looked_up_pci_bus_id, setup.pci_bus_id);
  fake_nvml().looked_up_pci_bus_id.clear();
  const long calls = fake_nvml().calls;
  const auto second = telemetry_probe::open(setup, protocol{});
  EXPECT_EQ(fake_nvml().looked_up_pci_bus_id, "") << "the handle was looked up again";
  EXPECT_EQ(fake_nvml().calls - calls, 5) << "only the opening snapshot's five getters";
  const device_telemetry& d = second->device();
  EXPECT_TRUE(d.available);
  EXPECT_EQ(d.pci_bus_id, setup.pci_bus_id);
  EXPECT_EQ(d.name, first->device().name);
  EXPECT_EQ(d.uuid, first->device().uuid);
  EXPECT_EQ(d.max_sm_clock_mhz, 1980U);
  EXPECT_EQ(d.power_limit_w, 700.0);
  EXPECT_EQ(d.clocks_locked, true);
  EXPECT_TRUE(second->warnings().empty());
}

TEST_F(telemetry_probe_test, ADeviceWhoseFactsFailedIsReadAgainByTheNextProbe) {
  const probe_setup setup = remembering_setup(api_);
  fake_nvml().calls_before_failure = 3; // handle lookup, name, UUID
  const auto failed = telemetry_probe::open(setup, protocol{});
  EXPECT_EQ(failed->device().driver_version, "");
  EXPECT_FALSE(failed->warnings().empty());
  fake_nvml().calls_before_failure.reset(); // the driver answers again
  fake_nvml().looked_up_pci_bus_id.clear();
  const auto again = telemetry_probe::open(setup, protocol{});
  EXPECT_EQ(fake_nvml().looked_up_pci_bus_id, setup.pci_bus_id);
  EXPECT_EQ(again->device().driver_version, "580.82.07");
  EXPECT_TRUE(again->warnings().empty());
}

TEST_F(telemetry_probe_test, FailingDuringOpenEmptiesDeviceFields) {
  fake_nvml().calls_before_failure = 3; // handle lookup, name, UUID
  const auto probe = open_fake();
  EXPECT_TRUE(probe->device().available);
  EXPECT_EQ(probe->device().name, "NVIDIA H200");
  EXPECT_EQ(probe->device().driver_version, "");
  EXPECT_FALSE(probe->device().max_sm_clock_mhz);
  EXPECT_FALSE(probe->device().power_limit_w);
  EXPECT_FALSE(probe->device().clocks_locked);
  EXPECT_FALSE(probe->warnings().empty());
  EXPECT_NO_THROW(run_trial(*probe));
}

TEST_F(telemetry_probe_test, NotSupportedIsEmptyWithoutWarning) {
  fake_nvml().power_result = nvml_error_not_supported;
  const auto probe = open_fake();
  const trial_telemetry t = run_trial(*probe);
  EXPECT_FALSE(t.after->power_w);
  EXPECT_EQ(t.after->temperature_c, 41U);
  EXPECT_TRUE(probe->warnings().empty());
}

TEST_F(telemetry_probe_test, MissingEntryPointsLeaveFieldsEmpty) {
  api_.device_get_applications_clock = nullptr;
  api_.device_get_temperature = nullptr;
  api_.device_get_clock_event_reasons = nullptr;
  api_.error_string = nullptr;
  const auto probe = open_fake();
  EXPECT_TRUE(probe->device().available);
  EXPECT_FALSE(probe->device().application_sm_clock_mhz);
  EXPECT_FALSE(probe->device().clocks_locked); // nothing to compare the clock with
  const trial_telemetry t = run_trial(*probe);
  EXPECT_EQ(t.after->sm_clock_mhz, 1980U);
  EXPECT_FALSE(t.after->temperature_c);
  EXPECT_FALSE(t.after->clock_event_reasons);
}

TEST_F(telemetry_probe_test, UnknownPciBusIdMakesNvmlUnavailable) {
  fake_nvml().handle_result = 6; // NVML_ERROR_NOT_FOUND
  const auto probe = open_fake();
  EXPECT_FALSE(probe->device().available);
  EXPECT_EQ(probe->device().unavailable_reason,
            "NVML has no device with PCI bus id 00000000:19:00.0: Unknown Error (NVML error 6)");
  const trial_telemetry t = run_trial(*probe);
  EXPECT_FALSE(t.before);
  EXPECT_FALSE(t.after);
  EXPECT_FALSE(t.throttled);
}

TEST_F(telemetry_probe_test, NullTableMakesNvmlUnavailable) {
  probe_setup setup; // setup.nvml stays null
  setup.nvml_unavailable_reason = "no NVML function table was given";
  const auto probe = telemetry_probe::open(setup, protocol{});
  EXPECT_FALSE(probe->device().available);
  EXPECT_FALSE(probe->device().unavailable_reason.empty());
  trial_telemetry t;
  EXPECT_NO_THROW(t = run_trial(*probe));
  EXPECT_FALSE(t.before);
  EXPECT_FALSE(t.after);
}

TEST_F(telemetry_probe_test, TelemetryOffInTheProtocol) {
  protocol p;
  p.telemetry = false;
  const auto probe = open_fake(p);
  EXPECT_FALSE(probe->device().available);
  EXPECT_EQ(probe->device().unavailable_reason, "telemetry is off in the protocol");
  EXPECT_EQ(fake_nvml().calls, 0);
  EXPECT_FALSE(run_trial(*probe).after);
}

// Restores KERNTIME_NVML_PATH however the test ends.
class nvml_path_override {
public:
  explicit nvml_path_override(const char* path) {
    if (const char* old = std::getenv("KERNTIME_NVML_PATH")) {
      old_ = old;
    }
    setenv("KERNTIME_NVML_PATH", path, 1);
  }
  ~nvml_path_override() {
    if (old_) {
      setenv("KERNTIME_NVML_PATH", old_->c_str(), 1);
    } else {
      unsetenv("KERNTIME_NVML_PATH");
    }
  }
  nvml_path_override(const nvml_path_override&) = delete;
  nvml_path_override& operator=(const nvml_path_override&) = delete;

private:
  std::optional<std::string> old_;
};

TEST(NvmlLoading, BadPathFailsWithTheReason) {
  std::string reason;
  EXPECT_FALSE(load_nvml("/nonexistent/libnvidia-ml.so.1", reason));
  EXPECT_NE(reason.find("cannot load /nonexistent/libnvidia-ml.so.1"), std::string::npos) << reason;
}

TEST(NvmlLoading, LibraryWithoutNvmlFailsWithTheReason) {
  std::string reason;
  EXPECT_FALSE(load_nvml("libc.so.6", reason));
  EXPECT_EQ(reason, "libc.so.6 lacks nvmlInit or nvmlDeviceGetHandleByPciBusId");
}

TEST(NvmlLoading, EnvironmentOverridesThePath) {
  {
    const nvml_path_override path("/nonexistent/libnvidia-ml.so.1");
    EXPECT_EQ(nvml_library_path(), "/nonexistent/libnvidia-ml.so.1");
    std::string reason;
    EXPECT_EQ(system_nvml(reason), nullptr);
    EXPECT_NE(reason.find("/nonexistent/libnvidia-ml.so.1"), std::string::npos) << reason;
  }
  if (std::getenv("KERNTIME_NVML_PATH") == nullptr) {
    EXPECT_EQ(nvml_library_path(), "libnvidia-ml.so.1");
  }
}

TEST(NvmlLoading, ProbeWithoutNvmlStillMeasures) {
  const nvml_path_override path("/nonexistent/libnvidia-ml.so.1");
  const auto probe = telemetry_probe::open(0, protocol{});
  EXPECT_FALSE(probe->device().available);
  EXPECT_NE(probe->device().unavailable_reason.find("/nonexistent/libnvidia-ml.so.1"),
            std::string::npos)
      << probe->device().unavailable_reason;
  probe->before_trial(nullptr);
  trial_telemetry t;
  EXPECT_NO_THROW(t = probe->after_trial(nullptr));
  EXPECT_FALSE(t.before);
  EXPECT_FALSE(t.after);
  // `kerntime info` reports the same reason.
  EXPECT_EQ(read_device_telemetry(0).unavailable_reason, probe->device().unavailable_reason);
  EXPECT_FALSE(read_snapshot(0));
}

} // namespace
} // namespace kerntime::detail
