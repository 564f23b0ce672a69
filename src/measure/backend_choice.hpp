#pragma once
// Which timer runs, decided from what the caller asked for, the CUDA error state and how
// attaching CUPTI went. Pure, so every branch is tested without a GPU.

#include <string>

#include "cupti/attach_outcome.hpp"
#include "kerntime/protocol.hpp"
#include "kerntime/result.hpp"

namespace kerntime::detail {

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
  cupti_mode mode = cupti_mode::none; // with use_cupti: subscribed, or shared with torch.profiler
};

// `cuda_error`: the CUDA error state checked after warmup (0 = none); `cuda_error_name` names it.
[[nodiscard]] backend_decision decide_backend(backend_request request, int cuda_error,
                                              const std::string& cuda_error_name,
                                              const attach_outcome& outcome);

} // namespace kerntime::detail
