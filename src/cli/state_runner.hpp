#pragma once
// Runs planned states in this process. A state that throws is recorded as failed and the next
// one runs. Without a worker process (--no-isolation, the Python module) a CUDA fault that makes
// the context unusable fails every later state too; the supervised run (supervised_run.hpp)
// starts a fresh worker instead.

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <vector>

#include "cli/state_plan.hpp"
#include "kerntime/protocol.hpp"
#include "kerntime/report.hpp"

namespace kerntime::detail {

// One state: its record, with its wall time and plan index; never throws for the benchmark's
// own errors. With `preparations` above 1 the state's trials are split over that many fresh
// preparations (the benchmark's function called again: inputs allocated, warm-up, timer attached),
// one after the other, and pooled into one result that says how far they spread
// (measurement_result::preparation_spread); not with a stopping rule or a counter pass, which
// take one.
[[nodiscard]] benchmark_run run_state(const std::vector<planned_state>& plan,
                                      std::size_t plan_index, const protocol& p,
                                      int preparations = 1);

// One preparation of kerntime's own reference (measure/reference_work.hpp) under `p`, launched on
// the stream whatever `p.launch`, recorded as a state named reference_state_name; never throws.
[[nodiscard]] benchmark_run run_reference(const protocol& p);

// Whether the CUDA context is unusable (a sticky error such as an illegal address): every call
// returns the error again after it has been read.
[[nodiscard]] bool context_unusable();

// The states at `plan_indices`, one after the other, each record naming `device`.
// `progress`: "[i/N] name ... ok in 0.4 s, 3.1 s elapsed" lines, only when it is a terminal.
// `hold_session`: CUPTI stays initialised from state to state (kerntime/session.hpp).
// `preparations`: as run_state's.
[[nodiscard]] std::vector<benchmark_run>
run_states(const std::vector<planned_state>& plan, const std::vector<std::size_t>& plan_indices,
           const protocol& p, const std::optional<run_device>& device, std::ostream* progress,
           bool hold_session = true, int preparations = 1);

} // namespace kerntime::detail
