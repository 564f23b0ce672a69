#pragma once
// The kerntime command line: `run`, `list`, `info`, `compare`, `merge`, `ab`, `calibrate`,
// `report` and `history` over a registry of benchmarks. Separate from main so tests run the real
// command in-process with their own registry and streams.

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "cli/device_check.hpp"
#include "kerntime/benchmark.hpp"

namespace kerntime::detail {

struct cli_environment {
  std::ostream* out = nullptr;  // markdown, listings, help
  std::ostream* err = nullptr;  // errors, warnings, progress
  bool err_is_terminal = false; // progress lines only for a person watching
  // nullopt when a CUDA device can be used; otherwise the line to print.
  std::function<std::optional<std::string>()> find_device_problem = find_cuda_device_problem;
  // nullopt when a driver can be loaded (no CUDA initialisation); otherwise the line to print.
  // A supervised run asks only this before its workers start, and find_device_problem beside
  // its first worker's start (named when no worker could use its GPU).
  std::function<std::optional<std::string>()> find_driver_problem = find_cuda_driver_problem;
  // In a process that measures: its CUDA context made; nullopt, or the line to print.
  std::function<std::optional<std::string>()> create_context = create_cuda_context;
  // The program `run` starts for its worker processes (this program; kerntime's own main sets
  // it). Empty: the states run in this process, as with --no-isolation.
  std::string worker_program;
};

// `args` includes the program name first, as argv does. Returns the exit code (exit_codes.hpp).
[[nodiscard]] int run_command_line(const std::vector<std::string>& args,
                                   const benchmark_registry& registry,
                                   const cli_environment& environment);

} // namespace kerntime::detail
