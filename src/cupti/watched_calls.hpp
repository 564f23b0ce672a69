#pragma once
// The API calls the trials watch through CUPTI's callback API, in place of an activity record of
// every runtime and driver call. PyTorch makes ~120 runtime calls per torch.topk for 20 launches;
// each record and its external-correlation record cost the host (docs/queue.md). A watched call
// hands the tag on top of the measuring thread's stack to the GPU records it launches (they carry
// its correlation id) and says when it returned and whether it waits for the GPU. Which calls:
// those that launched the GPU records of the calls before the trials (learned from their activity
// records), every kernel and graph launch call, and every call that makes the host wait.

#include <cupti_callbacks.h>

#include <compare>
#include <vector>

#include "cupti/activity_log.hpp"

namespace kerntime::detail {

struct watched_call {
  CUpti_CallbackDomain domain = CUPTI_CB_DOMAIN_INVALID;
  CUpti_CallbackId cbid = 0;
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy misreads the defaulted comparison
  auto operator<=>(const watched_call&) const = default;
};

// Sorted, each once.
[[nodiscard]] std::vector<watched_call> calls_to_watch(const activity_log& first_calls);

// The activity kind of a callback domain's calls: RUNTIME or DRIVER; INVALID for other domains.
[[nodiscard]] CUpti_ActivityKind api_kind_of(CUpti_CallbackDomain domain);

} // namespace kerntime::detail
