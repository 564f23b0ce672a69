#pragma once
// The facts shared by every run of one invocation: version, command line, host, date, device.

#include <span>
#include <string>
#include <vector>

#include "kerntime/report.hpp"

namespace kerntime::detail {

// The arguments joined with spaces, each quoted when the shell would split or expand it.
[[nodiscard]] std::string command_line_text(const std::vector<std::string>& args);

// The device and telemetry come from the first measured run, else from the current device.
[[nodiscard]] run_context make_run_context(const std::vector<std::string>& args,
                                           std::span<const benchmark_run> runs);

} // namespace kerntime::detail
