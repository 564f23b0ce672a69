#pragma once
// What attaching CUPTI reported, and which of CUPTI's results mean "CUPTI cannot be used in this
// process" rather than "kerntime or CUPTI is broken". The runner decides the timer from it.

#include <cupti_result.h>

#include <optional>
#include <string>

namespace kerntime::detail {

struct attach_outcome {
  bool attached = false;
  std::optional<std::string> load_error; // libcupti could not be loaded
  CUptiResult result = CUPTI_SUCCESS;    // the failing call's result when not attached
  std::string detail;                    // the failing call and its error text
};

// True for another subscriber, not supported, insufficient privileges, virtualized, MIG and
// similar devices.
[[nodiscard]] bool means_cupti_unavailable(CUptiResult result);

} // namespace kerntime::detail
