#pragma once
// `kerntime run` as a supervisor: the selected states go to worker processes of this same
// program, one per device of --devices, through supervise/supervisor.hpp.

#include <cstddef>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "cli/state_plan.hpp"
#include "kerntime/report.hpp"
#include "supervise/supervisor.hpp"

namespace kerntime::detail {

struct supervision_request {
  std::string program;           // the executable the workers run (this program)
  std::vector<std::string> args; // the command line, program name first, as given
  std::vector<int> devices;      // empty: one worker on the device this process would use
  double state_timeout_s = 600;
  std::vector<result_set> earlier; // earlier results (--baseline): longest states first
  // Variables every worker gets beside its device's (the phase of run --counters).
  std::vector<std::pair<std::string, std::string>> environment;
};

// The variables that put a worker on device `ordinal` (of --devices): CUDA_VISIBLE_DEVICES
// narrowed to it (within any the user set) and the number it reports. kerntime run and
// kerntime ab start their workers with them.
[[nodiscard]] std::vector<std::pair<std::string, std::string>>
worker_device_environment(int ordinal);

// Runs the states at `plan_indices` and returns their records in that order.
[[nodiscard]] std::vector<benchmark_run>
run_supervised(const std::vector<planned_state>& plan, const std::vector<std::size_t>& plan_indices,
               const supervision_request& request, std::ostream* progress, std::ostream& events,
               supervision_summary& summary);

} // namespace kerntime::detail
