#pragma once
// What a program prints: `kerntime ab` asks each of its two programs for its plan
// (`PROGRAM list --json`) before starting any worker, so a program that is not a kerntime program
// is refused by name before anything runs.

#include <string>
#include <vector>

namespace kerntime::detail {

struct program_output {
  int exit_code = -1;     // -1: killed, or ended by a signal
  std::string how;        // "exit code 0", "signal 9 (SIGKILL)", or why it could not start
  std::string out;        // its standard output
  std::string err;        // its standard error
  bool timed_out = false; // killed after the timeout
};

// Runs argv (argv[0] a path) with no input, waits up to `timeout_s` (then kills it) and returns
// what it printed. Throws kerntime::error when the process cannot be created.
[[nodiscard]] program_output run_program(const std::vector<std::string>& argv, double timeout_s);

// The program's path: `name` itself when it holds a '/', else the first executable of that name
// on PATH; empty when there is none.
[[nodiscard]] std::string find_program(const std::string& name);

} // namespace kerntime::detail
