#include "cli/run_context.hpp"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <ctime>

#include <fmt/format.h>

#include "kerntime/errors.hpp"
#include "measure/device.hpp"
#include "report/detail/host_facts.hpp"

#ifndef KERNTIME_VERSION
#error "KERNTIME_VERSION must be defined by the build"
#endif

namespace kerntime::detail {
namespace {

std::string quoted(const std::string& arg) {
  if (!arg.empty() && arg.find_first_of(" \t\n'\"\\$`*?[]{}()<>|&;!#~") == std::string::npos) {
    return arg;
  }
  std::string text = "'";
  for (const char c : arg) {
    text += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return text + "'";
}

// No measured state (all failed or skipped): the device as it reads now, if it can be read.
std::optional<device_info> current_device() {
  try {
    return read_current_device();
  } catch (const error&) {
    return std::nullopt;
  }
}

} // namespace

std::string command_line_text(const std::vector<std::string>& args) {
  std::string text;
  for (const auto& arg : args) {
    if (!text.empty()) {
      text += ' ';
    }
    text += quoted(arg);
  }
  return text;
}

run_context make_run_context(const std::vector<std::string>& args,
                             std::span<const benchmark_run> runs) {
  run_context context;
  context.kerntime_version = KERNTIME_VERSION;
  context.command_line = command_line_text(args);
  context.host_name = host_name();
  context.date = utc_now_iso8601();
  for (const auto& run : runs) {
    if (run.result) {
      context.device = run.result->device;
      context.telemetry = run.result->telemetry;
      break;
    }
  }
  if (!context.device) {
    context.device = current_device();
  }
  return context;
}

} // namespace kerntime::detail
