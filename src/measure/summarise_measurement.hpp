#pragma once
// The one owner of a finished measurement_result: the samples a timer handed on (their statistics,
// summarise_samples in src/result) together with what the runner knows beside them: the device,
// the timer and why, the warm-up, the flush, the telemetry and its warnings, the energy window,
// the counters' derived values or why there are none. After it nothing patches the result except
// the host time the measurement itself took (host_phases, wall_seconds), stamped at the end.

#include <optional>
#include <string>
#include <vector>

#include "kerntime/protocol.hpp"
#include "kerntime/result.hpp"
#include "measure/warmup.hpp"
#include "result/timed_trials.hpp"
#include "telemetry/energy_window.hpp"

namespace kerntime::detail {

struct runner_facts {
  device_info device;
  timing_backend backend = timing_backend::cupti;
  std::string backend_reason;
  cupti_mode cupti = cupti_mode::none;
  std::size_t flush_bytes = 0;
  warmup_outcome warmup;
  std::optional<std::string> fallback_warning; // why timing fell back, shown first
  // NVML's device readings and its notes; absent with telemetry off.
  std::optional<device_telemetry> telemetry;
  std::vector<std::string> telemetry_warnings;
  std::optional<energy_window> energy;
  // Set when energy was not read at all, saying why (a result pooled from preparations that each
  // read their own): the result's energy is unavailable with this reason.
  std::string energy_not_read;
  // Why the counters could not be read, found by the check before the run (empty: no reason).
  std::string counters_unavailable;
};

[[nodiscard]] measurement_result summarise(timed_trials timed, const protocol& p,
                                           runner_facts facts);

} // namespace kerntime::detail
