#pragma once
// The energy of a measurement from its trials' NVML energy-counter readings: joules per iteration
// and average watts over the kept trials. Pure, so the arithmetic is tested without a driver.

#include <vector>

#include "kerntime/protocol.hpp"
#include "kerntime/result.hpp"
#include "kerntime/telemetry.hpp"

namespace kerntime::detail {

// Sums the energy and the read-to-read time of every trial with both readings (a counter that
// went backwards, e.g. a driver reload, drops its trial). Unavailable, with the reason, when no
// trial has a usable pair: telemetry off, NVML unavailable, or no counter on this GPU.
[[nodiscard]] energy_summary summarise_energy(const std::vector<trial_result>& trials,
                                              const protocol& p, const device_telemetry& device);

} // namespace kerntime::detail
