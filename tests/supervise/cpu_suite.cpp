// A benchmark program without GPU work, for `kerntime run` supervised end to end on any machine:
// kerntime's real command line and supervisor, its workers this same program. The device check
// is passed over (nothing here touches a GPU) unless CPU_SUITE_NO_DEVICE names a problem; each
// benchmark does what its name says.

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "cli/command_line.hpp"
#include "kerntime/benchmark.hpp"

namespace {

void fine(kerntime::state& s) {
  s.skip("a CPU-only stand-in: measured nothing, ran in pid " + std::to_string(::getpid()));
}
void crashes(kerntime::state&) {
  std::raise(SIGSEGV);
}
void hangs(kerntime::state&) {
  for (;;) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}
void throws(kerntime::state&) {
  throw std::runtime_error("a benchmark's own error");
}

KERNTIME_BENCHMARK(fine).add_int_axis("n", {1, 2});
KERNTIME_BENCHMARK(crashes);
KERNTIME_BENCHMARK(hangs);
KERNTIME_BENCHMARK(throws);

} // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  kerntime::detail::cli_environment env;
  env.out = &std::cout;
  env.err = &std::cerr;
  // CPU_SUITE_DEVICE_CHECKS=file: each process that asks for the whole device check (which
  // initialises CUDA) appends its pid there. CPU_SUITE_NO_DEVICE=reason: that check finds the
  // reason (a driver that loads and a GPU that cannot be used); the driver check still passes.
  env.find_device_problem = [] {
    if (const char* log = std::getenv("CPU_SUITE_DEVICE_CHECKS")) {
      std::ofstream(log, std::ios::app) << ::getpid() << '\n';
    }
    const char* reason = std::getenv("CPU_SUITE_NO_DEVICE");
    return reason != nullptr ? std::optional<std::string>(reason) : std::nullopt;
  };
  env.find_driver_problem = [] { return std::optional<std::string>(); };
  // CPU_SUITE_NO_CONTEXT=reason: a worker cannot make its CUDA context (a GPU that exists but
  // is held in exclusive mode, say); the supervisor makes none of its own.
  env.create_context = [] {
    const char* reason = std::getenv("CPU_SUITE_NO_CONTEXT");
    return reason != nullptr ? std::optional<std::string>(reason) : std::nullopt;
  };
  std::error_code ignored;
  env.worker_program = std::filesystem::read_symlink("/proc/self/exe", ignored).string();
  return kerntime::detail::run_command_line(args, kerntime::benchmark_registry::global(), env);
}
