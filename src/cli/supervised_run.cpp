#include "cli/supervised_run.hpp"

#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "cli/device_selection.hpp"
#include "cli/worker_loop.hpp"

namespace kerntime::detail {
namespace {

std::optional<std::string> environment_value(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
}

// Each state's wall time in the earlier results, by state name.
std::map<std::string, double> earlier_seconds(const std::vector<result_set>& earlier) {
  std::map<std::string, double> seconds;
  for (const auto& set : earlier) {
    for (const auto& run : set.runs) {
      if (run.wall_seconds > 0) {
        seconds[run.state_name] = run.wall_seconds;
      }
    }
  }
  return seconds;
}

} // namespace

std::vector<std::pair<std::string, std::string>> worker_device_environment(int ordinal) {
  return {{"CUDA_VISIBLE_DEVICES",
           visible_devices_for(ordinal, environment_value("CUDA_VISIBLE_DEVICES"))},
          {worker_device_variable, std::to_string(ordinal)}};
}

std::vector<benchmark_run> run_supervised(const std::vector<planned_state>& plan,
                                          const std::vector<std::size_t>& plan_indices,
                                          const supervision_request& request,
                                          std::ostream* progress, std::ostream& events,
                                          supervision_summary& summary) {
  const auto known = earlier_seconds(request.earlier);
  std::vector<supervised_state> states;
  states.reserve(plan_indices.size());
  for (const auto i : plan_indices) {
    const auto& planned = plan.at(i);
    supervised_state s;
    s.identity.benchmark = planned.registered->name();
    s.identity.axes = planned.axis_texts;
    s.identity.state_name = planned.name;
    s.identity.plan_index = i;
    if (const auto found = known.find(planned.name); found != known.end()) {
      s.expected_seconds = found->second;
    }
    states.push_back(std::move(s));
  }

  supervisor_settings settings;
  settings.state_timeout_s = request.state_timeout_s;
  settings.start_timeout_s = std::max(120.0, request.state_timeout_s);
  settings.progress = progress;
  settings.events = &events;
  auto argv = request.args;
  argv.at(0) = request.program;
  if (request.devices.empty()) {
    settings.slots.push_back(
        {.launch = {.argv = argv, .environment = request.environment}, .label = "the GPU"});
  }
  for (const int d : request.devices) {
    auto environment = request.environment;
    for (auto& variable : worker_device_environment(d)) {
      environment.push_back(std::move(variable));
    }
    settings.slots.push_back({.launch = {.argv = argv, .environment = std::move(environment)},
                              .label = fmt::format("GPU {}", d)});
  }
  return supervise(states, settings, &summary);
}

} // namespace kerntime::detail
