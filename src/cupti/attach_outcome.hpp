#pragma once
// What attaching CUPTI reported, and which of CUPTI's results mean "CUPTI cannot be used in this
// process" rather than "kerntime or CUPTI is broken". The runner decides the timer from it.

#include <cupti_result.h>

#include <optional>
#include <string>

#include "cupti/cupti_sharing.hpp"

namespace kerntime::detail {

struct attach_outcome {
  bool attached = false;
  // Attached through the Activity API alone, beside an idle torch.profiler that holds CUPTI's
  // subscription (the caller granted it): nothing subscribed, nothing to finalize.
  bool shared = false;
  // Who the caller said holds CUPTI: names the reason when the subscription was refused.
  cupti_holder holder = cupti_holder::unknown;
  std::optional<std::string> load_error; // libcupti could not be loaded
  CUptiResult result = CUPTI_SUCCESS;    // the failing call's result when not attached
  std::string detail;                    // the failing call and its error text
};

// True for another subscriber, not supported, insufficient privileges, virtualized, MIG and
// similar devices.
[[nodiscard]] bool means_cupti_unavailable(CUptiResult result);

} // namespace kerntime::detail
