#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "cli/command_line.hpp"
#include "supervise/exit_codes.hpp"

namespace kerntime {

int run_command_line(int argc, const char* const* argv) {
  std::vector<std::string> args(argv, argv + argc);
  detail::cli_environment environment;
  environment.out = &std::cout;
  environment.err = &std::cerr;
  environment.err_is_terminal = ::isatty(STDERR_FILENO) == 1;
  // `run` starts this same program for its workers.
  std::error_code ignored;
  environment.worker_program = std::filesystem::read_symlink("/proc/self/exe", ignored).string();
  try {
    return detail::run_command_line(args, benchmark_registry::global(), environment);
  } catch (const std::exception& e) {
    // Only kerntime's own faults reach here; a benchmark's errors are recorded as failed runs.
    std::cerr << "kerntime: internal error: " << e.what() << '\n';
    return detail::exit_internal_error;
  }
}

} // namespace kerntime
