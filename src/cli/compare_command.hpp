#pragma once
// `kerntime compare BASE.json NEW.json`: the comparison on stdout, the gate in the exit code.

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/comparison_outputs.hpp"
#include "kerntime/compare.hpp"

namespace kerntime::detail {

struct compare_flags {
  std::vector<std::string> files;   // BASE NEW
  std::vector<std::string> base;    // --base (repeatable; a folder means every *.json in it)
  std::vector<std::string> changed; // --new, likewise
  std::string threshold = "2%";
  double alpha = 0.05;
  std::string metric;
  std::optional<std::string> filter;
  bool allow_different_devices = false;
  comparison_output_flags outputs;
  std::string on_clock_mismatch = "warn";
};

// --threshold as typed, "2%" or "0.02": a fraction in (0, 1), or a message naming the flag.
[[nodiscard]] double threshold_flag(const std::string& text);

// --on-clock-mismatch warn|fail (compare, run --baseline).
[[nodiscard]] clock_mismatch_rule clock_mismatch_flag(const std::string& text);
void add_clock_mismatch_option(CLI::App& command, std::string& rule);

// `kerntime compare`: the subcommand, its line in --help and its flags.
CLI::App* add_compare_command(CLI::App& app, compare_flags& flags);

// Exit 0: nothing got slower; 1: something did (listed first); 2: bad input.
[[nodiscard]] int run_compare(const compare_flags& flags, const cli_environment& env);

} // namespace kerntime::detail
