#include "cli/worker_flags.hpp"

#include <fmt/format.h>

#include "cli/device_selection.hpp"
#include "kerntime/errors.hpp"

namespace kerntime::detail {

void add_worker_options(CLI::App& command, worker_flags& flags, const worker_words& words) {
  command.add_option("--devices", flags.devices,
                     fmt::format("Measure on these GPUs in parallel, {} each: all, or numbers "
                                 "such as 0,2,3 (kerntime info lists them)",
                                 words.each_gpu_runs));
  command
      .add_option("--state-timeout", flags.state_timeout_s,
                  fmt::format("Seconds {} may run before its worker is killed and the state "
                              "recorded as {}",
                              words.bounded, words.recorded_as))
      ->capture_default_str();
}

void check_worker_flags(const worker_flags& flags) {
  if (!(flags.state_timeout_s > 0)) {
    throw invalid_argument(fmt::format("--state-timeout {:g}: give a number of seconds above 0, "
                                       "e.g. --state-timeout 600",
                                       flags.state_timeout_s));
  }
  if (flags.devices) {
    const int count = count_devices();
    (void)parse_devices(*flags.devices, count > 0 ? count : unknown_device_count);
  }
}

} // namespace kerntime::detail
