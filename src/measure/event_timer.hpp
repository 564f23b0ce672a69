#pragma once
// The fallback timer: CUDA events around each iteration's work (the flush stays outside), with the
// trial queued behind a blocking kernel so the GPU runs it without host launch gaps.

#include "measure/iteration_context.hpp"
#include "result/timed_trials.hpp"

namespace kerntime::detail {

// Must not run while CUPTI is attached: CUPTI's instrumentation would land in the events.
[[nodiscard]] timed_trials time_with_events(iteration_context& context);

} // namespace kerntime::detail
