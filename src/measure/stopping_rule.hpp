#pragma once
// When the measured trials end: after `trials` trials (the fixed protocol), or — with
// stop_at_ci — once the 95 % interval of the median trial median is within the target, bounded
// by max_trials and max_time_s. Pure, so tests walk it through every branch.

#include <functional>
#include <optional>
#include <vector>

#include "kerntime/protocol.hpp"
#include "kerntime/result.hpp"
#include "result/summarise.hpp"

namespace kerntime::detail {

// After `kept` kept trials and `elapsed_s` seconds of the measurement: the reason to stop, or
// nullopt to run another trial. `precision` is called only when the rule needs the samples
// (stop_at_ci, once the trials that always run are done): reading them costs the CUPTI timer a
// flush and an attribution. A target below the timer's step cannot be reached: the rule stops
// (timer_resolution) instead of running to its bounds.
[[nodiscard]] std::optional<stop_reason>
stop_after(const protocol& p, int kept, double elapsed_s,
           const std::function<median_precision()>& precision);

} // namespace kerntime::detail
