#pragma once
// Runs the planned states one after the other. A state that throws is recorded as failed and the
// next one runs: one broken benchmark (even a CUDA fault that kills the context) never loses the
// others' results.

#include <iosfwd>
#include <vector>

#include "cli/state_plan.hpp"
#include "kerntime/protocol.hpp"
#include "kerntime/report.hpp"

namespace kerntime::detail {

// `progress`: "[i/N] name ... ok in 0.4 s, 3.1 s elapsed" lines, only when it is a terminal.
[[nodiscard]] std::vector<benchmark_run> run_states(const std::vector<planned_state>& states,
                                                    const protocol& p, std::ostream* progress);

} // namespace kerntime::detail
