#pragma once
// `--devices` and `--state-timeout`: on which GPUs a command's worker processes run, and how long
// one may work before it is killed. `kerntime run` and `kerntime ab` take them alike.

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace kerntime::detail {

struct worker_flags {
  std::optional<std::string> devices; // all, or numbers such as 0,2,3
  double state_timeout_s = 600;
};

// What the help says each GPU runs ("one worker process", "a pair of workers"), what the timeout
// bounds ("a state", "one trial") and how a killed one is recorded ("timed_out", "timed_out for
// that side").
struct worker_words {
  std::string_view each_gpu_runs;
  std::string_view bounded;
  std::string_view recorded_as;
};

void add_worker_options(CLI::App& command, worker_flags& flags, const worker_words& words);

// Throws kerntime::invalid_argument for a timeout that is not above 0 or a --devices list this
// machine cannot have, before anything starts (exit 2 comes before a missing GPU's exit 3).
void check_worker_flags(const worker_flags& flags);

} // namespace kerntime::detail
