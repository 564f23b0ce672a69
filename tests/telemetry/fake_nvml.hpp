#pragma once
// An NVML function table with the readings of an H200, whose calls can be made to fail after a
// given number of calls: the driver state the probe must survive, without a driver.

#include <cstdint>
#include <optional>
#include <string>

#include "telemetry/nvml_api.hpp"

namespace kerntime::detail::testing {

struct fake_nvml_state {
  unsigned sm_clock_mhz = 1980;
  unsigned memory_clock_mhz = 3201;
  unsigned application_sm_mhz = 1980;
  unsigned application_memory_mhz = 3201;
  unsigned max_sm_mhz = 1980;
  unsigned max_memory_mhz = 3201;
  unsigned power_mw = 351'250;
  unsigned power_limit_mw = 700'000;
  unsigned temperature_c = 41;
  std::uint64_t clock_event_reasons = 0;
  nvml_return power_result = nvml_success;  // e.g. nvml_error_not_supported
  std::uint64_t energy_mj = 1'000'000;      // the total-energy counter
  unsigned long long energy_step_mj = 0;    // added to the counter after each read
  nvml_return energy_result = nvml_success; // e.g. nvml_error_not_supported
  std::optional<long> calls_before_failure; // then every call returns nvml_error_gpu_is_lost
  nvml_return handle_result = nvml_success;
  long calls = 0;
  std::string looked_up_pci_bus_id;
};

// The one fake device; reset it at the start of every test.
fake_nvml_state& fake_nvml();
void reset_fake_nvml();

// Every entry point filled in.
[[nodiscard]] nvml_api fake_nvml_api();

} // namespace kerntime::detail::testing
