#include "telemetry/energy_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace kerntime::detail {

energy_summary summarise_energy(const std::optional<energy_window>& window, const protocol& p,
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
  if (!window || !window->mj_before) {
    summary.unavailable_reason = "NVML gives no total-energy counter for this GPU "
                                 "(nvmlDeviceGetTotalEnergyConsumption is unsupported or failed)";
    return summary;
  }
  summary.window_s = window->seconds;
  summary.window_iterations = window->iterations;
  if (window->seconds < window->min_seconds) {
    // Trials last a few milliseconds; the counter moves in steps of ~100 ms. Suggest repeats that
    // make the same trials last the minimum, with a margin.
    const double scale = window->min_seconds / std::max(window->seconds, 1e-6) * 1.2;
    const auto repeats = static_cast<long long>(std::ceil(p.repeats * scale));
    summary.unavailable_reason = fmt::format(
        "the trials lasted {:.3f} s; NVML's energy counter moves in steps (about every 0.1 s on "
        "an H200), so kerntime reads energy over at least {:.0f} s of trials; measure longer, "
        "e.g. --repeat {}",
        window->seconds, window->min_seconds, repeats);
    return summary;
  }
  if (!window->mj_after) {
    summary.unavailable_reason = "NVML's energy counter could not be read after the trials "
                                 "(nvmlDeviceGetTotalEnergyConsumption failed; see the warnings)";
    return summary;
  }
  if (*window->mj_after < *window->mj_before) {
    summary.unavailable_reason =
        "NVML's energy counter went backwards during the trials (a driver reload?)";
    return summary;
  }
  if (*window->mj_after == *window->mj_before || window->iterations == 0) {
    summary.unavailable_reason = fmt::format(
        "NVML's energy counter did not advance during {:.3f} s of trials", window->seconds);
    return summary;
  }
  const double joules = static_cast<double>(*window->mj_after - *window->mj_before) / 1000.0;
  summary.available = true;
  summary.joules_per_iteration = joules / static_cast<double>(window->iterations);
  summary.average_watts = joules / window->seconds;
  return summary;
}

} // namespace kerntime::detail
