#pragma once
// `kerntime report RUN.json`: a kerntime JSON written earlier rendered again, into any report
// format (--html, --junit, --csv, --gbench-json, --trace, --json; markdown on stdout), and with
// --baseline BASE.json compared first, so the HTML shows each state's ratio to the baseline.

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

#include "cli/command_line.hpp"
#include "cli/report_files.hpp"

namespace kerntime::detail {

struct report_flags {
  std::string input;
  std::string baseline;
  report_file_flags reports;
  bool quiet = false;
  bool gate = false;                 // exit 1 for a failed state or, with --baseline, a regression
  std::optional<std::string> filter; // only the states whose name the pattern finds (RE2)
};

// `kerntime report`: the subcommand, its line in --help and its flags.
CLI::App* add_report_command(CLI::App& app, report_flags& flags);

// Exit 0: every file written; 1: a file was not written, or with --gate a state of the file
// failed or (with --baseline) got slower; 2: bad input (a file that is not a kerntime result
// set, a baseline compare refuses), nothing written. Without --gate the states' outcomes and the
// verdicts change nothing here: they were the measuring command's to gate on.
[[nodiscard]] int run_report(const report_flags& flags, const cli_environment& env);

} // namespace kerntime::detail
