#pragma once
// `kerntime history add|show|changes|baseline`: runs kept in a store (src/history), each state's
// series shown, the level shifts in it found with the runs and commits around each, and the newest
// runs written as a baseline of several runs.

#include <CLI/CLI.hpp>

#include <cstdint>

#include <optional>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "kerntime/report.hpp"

namespace kerntime::detail {

// Where a run goes in the history, and what is said about it: history add, run --store.
struct history_target {
  std::string store = "kerntime-history.sqlite";
  std::string commit;
  std::string branch;
  std::vector<std::string> labels; // KEY=VALUE
};

struct history_flags {
  history_target target; // --store (every subcommand); --commit, --branch, --label (add)
  // add
  std::vector<std::string> inputs;
  // show, changes
  std::optional<std::string> filter;
  std::optional<std::string> device;
  std::optional<std::string> branch_filter;
  std::optional<std::string> json; // FILE, or - for stdout
  std::optional<std::string> html; // show: the trends page
  std::string threshold = "1%";
  double alpha = 0.01;
  // baseline
  std::size_t last = 5;
};

struct history_commands {
  CLI::App* history = nullptr; // the command itself; the others are its subcommands
  CLI::App* add = nullptr;
  CLI::App* show = nullptr;
  CLI::App* changes = nullptr;
  CLI::App* baseline = nullptr;
};

// `kerntime history` and its subcommands, their lines in --help and their flags.
history_commands add_history_command(CLI::App& app, history_flags& flags);

// --commit, --branch and --label of a run added to the history (history add, run --store).
void add_run_label_options(CLI::App& command, history_target& target);
// Opens the store (making it where none is) and checks the labels, so that `run --store` refuses
// a bad store or label before it measures anything. Throws kerntime::invalid_argument.
void check_history_target(const history_target& target);
// Adds a run to the store; returns its id in the store.
std::int64_t add_to_history(const history_target& target, const result_set& set,
                            const std::string& source);

// Exit 0; 1 (changes) when a state's latest change made it slower beyond --threshold; 2 bad
// input (a missing or newer store, a file that is not a result set, a run added twice).
[[nodiscard]] int run_history(const history_commands& commands, const history_flags& flags,
                              const std::vector<std::string>& args, const cli_environment& env);

} // namespace kerntime::detail
