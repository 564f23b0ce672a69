#pragma once
// Runs the real kerntime command line in-process over a registry, with its output captured.

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_line.hpp"

namespace kerntime::detail {

struct cli_outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `kerntime ARGS...`. With `device_ok` the device check passes (for benchmarks that never touch
// the GPU); otherwise the real check runs.
inline cli_outcome run_cli(const benchmark_registry& registry, std::vector<std::string> args,
                           bool device_ok = false, bool terminal = false) {
  args.insert(args.begin(), "kerntime");
  std::ostringstream out;
  std::ostringstream err;
  cli_environment env;
  env.out = &out;
  env.err = &err;
  env.err_is_terminal = terminal;
  if (device_ok) {
    env.find_device_problem = [] { return std::optional<std::string>(); };
    env.create_context = [] { return std::optional<std::string>(); };
  }
  const int code = run_command_line(args, registry, env);
  return {code, out.str(), err.str()};
}

} // namespace kerntime::detail
