#pragma once
// `kerntime history add|show|changes|baseline`: runs kept in a store (src/history), each state's
// series shown, the level shifts in it found with the runs and commits around each, and the newest
// runs written as a baseline of several runs.

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/command_line.hpp"

namespace kerntime::detail {

struct history_flags {
  std::string store = "kerntime-history.sqlite";
  // add
  std::vector<std::string> inputs;
  std::string commit;
  std::string branch;
  std::vector<std::string> labels; // KEY=VALUE
  // show, changes
  std::optional<std::string> filter;
  std::optional<std::string> device;
  std::optional<std::string> branch_filter;
  std::optional<std::string> json; // FILE, or - for stdout
  std::string threshold = "1%";
  double alpha = 0.01;
  // baseline
  std::size_t last = 5;
};

struct history_commands {
  CLI::App* add = nullptr;
  CLI::App* show = nullptr;
  CLI::App* changes = nullptr;
  CLI::App* baseline = nullptr;
};

history_commands add_history_options(CLI::App& history, history_flags& flags);

// Exit 0; 1 (changes) when a state's latest change made it slower beyond --threshold; 2 bad
// input (a missing or newer store, a file that is not a result set, a run added twice).
[[nodiscard]] int run_history(const history_commands& commands, const history_flags& flags,
                              const std::vector<std::string>& args, const cli_environment& env);

} // namespace kerntime::detail
