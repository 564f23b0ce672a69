#include "kerntime/report.hpp"

namespace kerntime {

std::string_view to_string(run_status s) {
  switch (s) {
  case run_status::ok:
    return "ok";
  case run_status::failed:
    return "failed";
  case run_status::skipped:
    return "skipped";
  }
  return "?";
}

std::string benchmark_run::state_name() const {
  std::string name = benchmark;
  for (const auto& [axis, value] : axes) {
    name += '/';
    name += axis;
    name += '=';
    name += value;
  }
  return name;
}

} // namespace kerntime
