#pragma once
// `kerntime merge A.json B.json …`: the files of a sharded run (results of `run --shard`, or plans
// of `list --shard --json`) joined into one set of reports, in plan order.

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/report_files.hpp"

namespace kerntime::detail {

struct merge_flags {
  std::vector<std::string> inputs;
  report_file_flags reports;
  bool allow_partial = false;
  bool quiet = false;
};

// `kerntime merge`: the subcommand, its line in --help and its flags.
CLI::App* add_merge_command(CLI::App& app, merge_flags& flags);

// Exit 0: merged (and every file written); 1: a state failed in a shard, or a file was not
// written; 2: bad input (files that do not merge), nothing written.
[[nodiscard]] int run_merge(const merge_flags& flags, const std::vector<std::string>& args,
                            const cli_environment& env);

} // namespace kerntime::detail
