#pragma once
// `kerntime ab A_PROGRAM B_PROGRAM`: is B faster than A? Both programs' workers run on the same
// GPU, one trial at a time in the order A B B A, each trial a fresh preparation of the state, and
// every state stops as soon as its confidence sequence decides (supervise/ab_run.hpp,
// docs/ab.md). Outputs as `kerntime compare` has them, plus each side's result set.

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/comparison_outputs.hpp"
#include "cli/protocol_flags.hpp"
#include "cli/worker_flags.hpp"
#include "supervise/ab_run.hpp"

namespace kerntime::detail {

struct ab_flags {
  std::vector<std::string> programs; // A_PROGRAM B_PROGRAM
  // Which states, as `run` selects them.
  std::optional<std::string> filter;
  std::vector<std::string> axis_specs;
  // The protocol of each trial, as `run` takes it: checked here, handed to both programs'
  // workers as typed.
  trial_protocol_flags trial;
  std::string cuda_graph;
  // The decision.
  std::string threshold = "1%";
  double alpha = 0.05;
  long long max_pairs = 100;
  long long pairs_per_round = 2;
  long long most_pairs_per_round = 8; // at least pairs_per_round where not given
  long long min_rounds = static_cast<long long>(default_min_rounds);
  bool keep_workers = false;
  bool start_ahead = false;    // the next round's pair starts while this one measures
  long long reference = 4;     // trials per side per round of kerntime's reference; 0: none
  std::string streams = "one"; // one: a worker measures everything on one stream; fresh: a new
                               // stream per measurement
  bool run_to_limits = false;  // every undecided state to --max-pairs or --max-time
  std::string vary_placement = "on";
  double max_time_s = 60;
  worker_flags workers; // --devices, --state-timeout (of one trial)
  bool fail_on_inconclusive = false;
  // The outputs.
  comparison_output_flags outputs; // --json, --junit, --csv, -q as kerntime compare has them
  std::string html;
  std::string results_a;
  std::string results_b;
  std::vector<std::string> refused; // run flags ab has no use for, refused by name
};

// `kerntime ab`: the subcommand, its line in --help and its flags.
CLI::App* add_ab_command(CLI::App& app, ab_flags& flags);

// Exit 0: no state got slower; 1: one did (listed first), a state failed on a side, a report
// was not written, or, with --fail-on-inconclusive, a state stayed inconclusive; 2: bad input (a
// program that is not a kerntime program, no state in common); 3: no usable GPU.
[[nodiscard]] int run_ab_command(const CLI::App& ab, const ab_flags& flags,
                                 const std::vector<std::string>& args, const cli_environment& env);

} // namespace kerntime::detail
