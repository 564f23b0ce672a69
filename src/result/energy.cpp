#include "result/energy.hpp"

#include <fmt/format.h>

namespace kerntime::detail {

energy_summary summarise_energy(const std::vector<trial_result>& trials, const protocol& p,
                                const device_telemetry& device) {
  energy_summary summary;
  if (!p.telemetry) {
    summary.unavailable_reason = "telemetry is off in the protocol (--no-telemetry)";
    return summary;
  }
  if (!device.available) {
    summary.unavailable_reason = "NVML is not available: " + device.unavailable_reason;
    return summary;
  }
  double millijoules = 0;
  double seconds = 0;
  std::size_t iterations = 0;
  bool went_backwards = false;
  for (const auto& trial : trials) {
    const auto& t = trial.telemetry;
    if (!t.energy_mj_before || !t.energy_mj_after || !t.energy_interval_s) {
      continue;
    }
    if (*t.energy_mj_after < *t.energy_mj_before) {
      went_backwards = true;
      continue;
    }
    millijoules += static_cast<double>(*t.energy_mj_after - *t.energy_mj_before);
    seconds += *t.energy_interval_s;
    iterations += trial.iterations.size();
  }
  if (iterations == 0 || !(seconds > 0)) {
    summary.unavailable_reason =
        went_backwards ? "NVML's energy counter went backwards during every trial (a driver "
                         "reload?)"
                       : "NVML gives no total-energy counter for this GPU "
                         "(nvmlDeviceGetTotalEnergyConsumption is unsupported or failed)";
    return summary;
  }
  if (millijoules == 0) {
    // The counter advances in steps (tens of milliseconds on recent GPUs): no step is no
    // reading, never zero energy.
    summary.unavailable_reason = fmt::format(
        "NVML's energy counter did not advance during {:.3f} s of trials (shorter than its "
        "update period); measure longer trials (--repeat) to read energy",
        seconds);
    return summary;
  }
  summary.available = true;
  summary.joules_per_iteration = millijoules / 1000.0 / static_cast<double>(iterations);
  summary.average_watts = millijoules / 1000.0 / seconds;
  return summary;
}

} // namespace kerntime::detail
