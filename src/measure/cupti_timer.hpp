#pragma once
// Times the protocol's trials from CUPTI activity records: each iteration's flush and work are
// tagged with external correlation ids so every GPU record is attributed to exactly one iteration.

#include "cupti/cupti_session.hpp"
#include "kerntime/counters.hpp"
#include "measure/iteration_context.hpp"
#include "result/timed_trials.hpp"

namespace kerntime::detail {

// `session` must be attached. Runs one discarded iteration (the first after attaching pays
// CUPTI's instrumentation set-up), then the trials; detaches; attributes.
[[nodiscard]] timed_trials time_with_cupti(cupti_session& session, iteration_context& context);

// protocol.counters_only: no trials; one traced iteration names the kernels, then the counter
// pass (before CUPTI is released) profiles the next. Detaches. Derived values that need a timed
// duration are left for the caller (rederive_counters with another run's times).
[[nodiscard]] counters_summary counters_with_cupti(cupti_session& session,
                                                   iteration_context& context);

} // namespace kerntime::detail
