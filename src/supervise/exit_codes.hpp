#pragma once
// The kerntime command's exit codes, documented in README.md; here, below the command line, because
// the supervisor reads them from the kerntime programs it starts.

namespace kerntime::detail {

inline constexpr int exit_ok = 0;
inline constexpr int exit_benchmark_failed = 1; // a benchmark failed or a report was not written
inline constexpr int exit_regression = 1;       // compare: a state got slower (the gate)
inline constexpr int exit_bad_input = 2;        // nothing was run
inline constexpr int exit_no_device = 3;        // nothing was run
inline constexpr int exit_internal_error = 4;   // kerntime itself failed (a bug to report)

} // namespace kerntime::detail
