#pragma once
// `kerntime calibrate`: what this GPU achieves at the clocks it runs now, timed with kerntime's
// own measure(): a large device-to-device copy and a large GEMM per precision the program can run
// (cuBLAS, where the program links kerntime_cublas_gemms). Writes the calibration JSON that
// `kerntime run --calibration FILE` reads. Never changes clocks.

#include <CLI/CLI.hpp>

#include <string>

#include "cli/command_line.hpp"

namespace kerntime::detail {

struct calibrate_flags {
  std::string output = "calibration.json";
  long long gemm_size = 8192;
  long long copy_mib = 1024;
};

// `kerntime calibrate`: the subcommand, its line in --help and its flags.
CLI::App* add_calibrate_command(CLI::App& app, calibrate_flags& flags);

// Exit 0: written; 2: bad input; 3: no CUDA device.
[[nodiscard]] int run_calibrate(const calibrate_flags& flags, const std::vector<std::string>& args,
                                const cli_environment& env);

} // namespace kerntime::detail
