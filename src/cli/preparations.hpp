#pragma once
// A state's trials split over fresh preparations (its function called again: inputs allocated,
// warm-up, timer attached) and pooled into one result that says how far the preparations spread
// (measurement_result::preparation_spread). In one process a state moves by up to a few percent
// from one preparation to the next while its trials within one agree to a tenth of that
// (docs/ab.md, "What moves a preparation"); trials that are preparations carry that spread into
// every interval drawn from them, `kerntime compare`'s included.

#include <functional>

#include "cli/run_command.hpp"
#include "kerntime/protocol.hpp"
#include "kerntime/report.hpp"

namespace kerntime::detail {

// How many preparations each state's trials are split over: --preparations, else one per trial,
// and one with --stop-at-ci (it adds trials to one preparation). Throws invalid_argument for a
// count below 1, above the trials, or above 1 with --stop-at-ci.
[[nodiscard]] int preparations_of(const run_flags& flags, const protocol& p);

// Calls `prepare_once` for each preparation with the protocol's trials split over them (the
// first ones one more where they do not divide), and pools the results; the first run that is
// not ok (failed or skipped) is returned as it is, a failure after the first preparation saying
// which one it was. One preparation (or a stopping rule, or a
// counter pass, which take one) calls it once with the protocol unchanged.
[[nodiscard]] benchmark_run
run_in_preparations(const protocol& p, int preparations,
                    const std::function<benchmark_run(const protocol&)>& prepare_once);

} // namespace kerntime::detail
