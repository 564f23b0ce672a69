#pragma once
// What a program prints: `kerntime ab` asks each of its two programs for its plan
// (`PROGRAM list --json`) before starting any worker, so a program that is not a kerntime program
// is refused by name before anything runs.

#include <cstddef>
#include <string>
#include <vector>

namespace kerntime::detail {

// The most of a program's output kept: a plan of a million states is some 100 MiB; past that it
// is no plan (`yes list --json` prints gigabytes a second).
inline constexpr std::size_t max_output_bytes = std::size_t{256} << 20;
inline constexpr std::size_t max_error_bytes = std::size_t{64} << 10; // the start says why

struct program_output {
  int exit_code = -1;           // -1: killed, or ended by a signal
  std::string how;              // "exit code 0", "signal 9 (SIGKILL)", or why it could not start
  std::string out;              // its standard output
  std::string err;              // its standard error, its first max_error_bytes
  bool timed_out = false;       // it had not exited by the timeout: killed
  bool too_much_output = false; // it printed more than max_output_bytes: killed
};

// Runs argv (argv[0] a path) in a process group of its own with no input, waits up to
// `timeout_s` for it to exit and returns what it printed; then kills the group (what it left
// running, or itself past the timeout or the output limit). Throws kerntime::error when the
// process cannot be created.
[[nodiscard]] program_output run_program(const std::vector<std::string>& argv, double timeout_s);

// The program's path: `name` itself when it holds a '/', else the first executable of that name
// on PATH; empty when there is none.
[[nodiscard]] std::string find_program(const std::string& name);

} // namespace kerntime::detail
