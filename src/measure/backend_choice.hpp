#pragma once
// Which timer runs, decided from what the caller asked for, the CUDA error state and how
// attaching CUPTI went. Pure, so every branch is tested without a GPU.

#include <cupti_result.h>

#include <optional>
#include <string>

#include "kerntime/protocol.hpp"

namespace kerntime::detail {

// How attaching CUPTI went.
struct attach_outcome {
  bool attached = false;
  std::optional<std::string> load_error; // libcupti could not be loaded
  CUptiResult result = CUPTI_SUCCESS;    // the failing call's result when not attached
  std::string detail;                    // the failing call and its error text
};

// True for the results that mean "CUPTI cannot be used in this process" (another subscriber,
// not supported, insufficient privileges, virtualized, MIG and similar devices), as opposed to a
// CUPTI failure that means kerntime or CUPTI is broken.
[[nodiscard]] bool means_cupti_unavailable(CUptiResult result);

enum class backend_action {
  use_cupti,
  use_events,       // fall back: warn once with `reason`
  fail_unavailable, // backend = cupti and CUPTI is unavailable
  fail_benchmark,   // the benchmarked code left a CUDA error: never a reason to fall back
  fail_invalid,     // CUPTI failed in a way that is not "unavailable"
};

struct backend_decision {
  backend_action action = backend_action::use_cupti;
  std::string reason;
};

// `cuda_error`: the CUDA error state checked after warmup (0 = none); `cuda_error_name` names it.
[[nodiscard]] backend_decision decide_backend(backend_request request, int cuda_error,
                                              const std::string& cuda_error_name,
                                              const attach_outcome& outcome);

} // namespace kerntime::detail
