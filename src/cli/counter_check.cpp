#include "cli/counter_check.hpp"

#include <fmt/format.h>

#include "cli/device_selection.hpp"
#include "counters/counter_pass.hpp"
#include "counters/metric_plan.hpp"
#include "result/message_words.hpp"

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
    err << fmt::format("kerntime: counters: {} on chip {} (GPU {}), {} per kernel, after each "
                       "state's timing trials\n",
                       counted(plan.metrics.size(), "metric"), plan.chip, ordinal,
                       counted(plan.passes, "replay pass", "replay passes"));
  } catch (const counters_unavailable& e) {
    err << fmt::format("kerntime: warning: hardware counters unavailable on GPU {}: {}; timing "
                       "goes on, and each result's counters block says why\n",
                       ordinal, e.reason());
  }
}

} // namespace kerntime::detail
