#include "measure/backend_choice.hpp"

#include <fmt/format.h>

namespace kerntime::detail {

backend_decision decide_backend(backend_request request, int cuda_error,
                                const std::string& cuda_error_name, const attach_outcome& outcome) {
  // A CUDA error comes first: after a fault CUPTI still "works" and hands back zero timestamps.
  if (cuda_error != 0) {
    return {backend_action::fail_benchmark,
            fmt::format("the benchmarked code raised {} before timing", cuda_error_name)};
  }
  if (request == backend_request::events) {
    return {backend_action::use_events, "CUDA events requested (--backend events)"};
  }
  if (outcome.attached && outcome.shared) {
    return {backend_action::use_cupti,
            fmt::format("CUPTI activity records, {} (it holds CUPTI's subscription; kerntime "
                        "used the Activity API alone and left CUPTI as it found it)",
                        describe(cupti_holder::idle_torch_profiler)),
            cupti_mode::shared_with_idle_torch_profiler};
  }
  if (outcome.attached) {
    return {backend_action::use_cupti, "CUPTI activity records", cupti_mode::subscribed};
  }
  std::string why;
  bool unavailable = false;
  if (outcome.load_error) {
    why = *outcome.load_error;
    unavailable = true;
  } else {
    why = outcome.detail;
    unavailable = means_cupti_unavailable(outcome.result);
    if (outcome.result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
      // The holder first: "torch.profiler is recording" is what the user can act on.
      why = fmt::format("{} ({})", describe(outcome.holder), why);
    }
  }
  if (!unavailable) {
    return {backend_action::fail_invalid,
            fmt::format("CUPTI failed unexpectedly: {}; this is not one of the 'unavailable' "
                        "errors, so kerntime does not hide it behind a fallback",
                        why)};
  }
  if (request == backend_request::cupti) {
    return {backend_action::fail_unavailable, why};
  }
  return {backend_action::use_events, fmt::format("CUPTI unavailable: {}", why)};
}

} // namespace kerntime::detail
