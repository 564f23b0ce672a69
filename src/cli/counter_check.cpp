#include "cli/counter_check.hpp"

#include <fmt/format.h>

#include "cli/device_selection.hpp"
#include "counters/counter_pass.hpp"
#include "counters/metric_plan.hpp"

namespace kerntime::detail {

void announce_counters(const protocol& p, const std::optional<std::string>& devices,
                       std::ostream& err) {
  int ordinal = 0;
  if (devices) {
    const auto chosen = parse_devices(*devices, count_devices());
    if (!chosen.empty()) {
      ordinal = chosen.front();
    }
  }
  try {
    const metric_plan plan = check_device_metrics(ordinal, p.metrics);
    err << fmt::format("kerntime: counters: {} metrics on chip {} (GPU {}), {} replay pass{} per "
                       "kernel, after each state's timing trials\n",
                       plan.metrics.size(), plan.chip, ordinal, plan.passes,
                       plan.passes == 1 ? "" : "es");
  } catch (const counters_unavailable& e) {
    err << fmt::format("kerntime: warning: hardware counters unavailable on GPU {}: {}; timing "
                       "goes on, and each result's counters block says why\n",
                       ordinal, e.reason());
  }
}

} // namespace kerntime::detail
