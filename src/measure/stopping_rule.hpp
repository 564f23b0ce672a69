#pragma once
// When the measured trials end: after `trials` trials (the fixed protocol), or — with
// stop_at_ci — once the 95 % interval of the median trial median is within the target, bounded
// by max_trials and max_time_s. Pure, so tests walk it through every branch.

#include <functional>
#include <optional>
#include <vector>

#include "kerntime/protocol.hpp"
#include "kerntime/result.hpp"

namespace kerntime::detail {

// After `kept` kept trials and `elapsed_s` seconds of the measurement: the reason to stop, or
// nullopt to run another trial. `trial_medians` is called only when the rule needs the samples
// (stop_at_ci, once the trials that always run are done): reading them costs the CUPTI timer a
// flush and an attribution.
[[nodiscard]] std::optional<stop_reason>
stop_after(const protocol& p, int kept, double elapsed_s,
           const std::function<std::vector<double>()>& trial_medians);

} // namespace kerntime::detail
