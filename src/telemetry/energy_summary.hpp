#pragma once
// The energy of a measurement from its energy window (telemetry/energy_window.hpp): joules per
// iteration and average watts. Pure, so the arithmetic is tested without a driver.

#include <optional>

#include "kerntime/protocol.hpp"
#include "kerntime/telemetry.hpp"
#include "telemetry/energy_window.hpp"

namespace kerntime::detail {

// Unavailable, with the reason, when the window gives no usable pair of readings: telemetry off,
// NVML unavailable, no counter on this GPU, a window too short to read, a counter that went
// backwards (a driver reload) or did not move.
[[nodiscard]] energy_summary summarise_energy(const std::optional<energy_window>& window,
                                              const protocol& p, const device_telemetry& device);

} // namespace kerntime::detail
