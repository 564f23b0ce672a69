#pragma once
// Reads one NVML device through an nvml_api table. A call that fails leaves its field empty and
// is noted once (per entry point), so a driver that fails mid-run costs readings, never the
// measurement. Getters only.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kerntime/telemetry.hpp"
#include "telemetry/nvml_api.hpp"

namespace kerntime::detail {

class nvml_reader {
public:
  nvml_reader(const nvml_api& api, nvml_device device) : api_(&api), device_(device) {}

  // The facts read once per measurement: name, UUID, driver version, maximum and application
  // clocks, power limit. Leaves `available`, the PCI bus id and clocks_locked to the caller.
  void read_device(device_telemetry& out);

  // The state now: SM and memory clocks, power, temperature, clock-event reasons.
  [[nodiscard]] gpu_snapshot read_snapshot();

  // The total-energy counter in millijoules; empty where the GPU or driver has none.
  [[nodiscard]] std::optional<std::uint64_t> read_energy_mj();

  // Notes on entry points that failed for the first time since the last call, e.g.
  // "NVML nvmlDeviceGetPowerUsage failed: GPU is lost (NVML error 15); its readings are empty".
  [[nodiscard]] std::vector<std::string> take_new_failures();

private:
  // Calls `function` when present; true on success. "Not supported" is a property of the card,
  // not a failure, so it leaves the field empty without a note.
  template <class Function, class... Arguments>
  bool call(const char* name, Function function, Arguments... arguments);

  const nvml_api* api_;
  nvml_device device_;
  std::set<std::string> failed_;
  std::vector<std::string> new_failures_;
};

} // namespace kerntime::detail
