#pragma once
// `kerntime run`: its flags, and the run itself: the states measured (in worker processes, or in
// this one), the reports written, the baseline compared and the history added to. A worker
// process started by `run` comes here too and serves its supervisor instead.

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/history_command.hpp"
#include "cli/protocol_flags.hpp"
#include "cli/report_files.hpp"
#include "cli/roofline_flags.hpp"
#include "cli/state_selection.hpp"
#include "cli/worker_flags.hpp"

namespace kerntime::detail {

// The run command's flags: the protocol as typed, then the report files.
struct run_flags {
  trial_protocol_flags trial; // the flags of a trial's protocol that `ab` takes too
  // The stopping rule's numbers, which count only when given.
  double stop_at_ci = 0;
  long long max_trials = 0;
  double max_time_s = 0;
  std::optional<std::string> cuda_graph; // given: "" (the flag alone), on, off or both
  // Fresh preparations per state, the trials split over them; not given: one per trial (one in
  // all with --stop-at-ci).
  std::optional<long long> preparations;
  report_file_flags reports;
  roofline_flags roofline;                // --peaks, --calibration
  std::string baseline;                   // compare the run with this kerntime JSON
  std::string on_clock_mismatch = "warn"; // --on-clock-mismatch, with --baseline
  std::optional<history_target> history;  // --store: the run is added to this history
  bool quiet = false;
  // How the states run: worker processes (on these devices), or this process.
  worker_flags workers;
  bool no_isolation = false;
  bool no_session = false; // finalize CUPTI after every state (kerntime/session.hpp)
};

void add_run_options(CLI::App& run, run_flags& flags);

// After parsing: the flags checked, the plan made, the states measured and reported. Exit codes
// as README.md says; throws kerntime::invalid_argument for bad input (exit 2).
[[nodiscard]] int run_measurements(const CLI::App& run, run_flags& flags,
                                   const selection_flags& run_selection,
                                   const benchmark_registry& registry,
                                   const std::vector<std::string>& args,
                                   const cli_environment& env);

} // namespace kerntime::detail
