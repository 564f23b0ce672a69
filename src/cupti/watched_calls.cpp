#include "cupti/watched_calls.hpp"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include <algorithm>
#include <array>
#include <unordered_set>
#include <utility>

#include "cupti/host_wait_calls.hpp"

namespace kerntime::detail {
namespace {

// Launches kerntime makes itself (the flush, the blocking kernel, the clock check: <<<>>> is
// cudaLaunchKernel), the launch calls libraries use (cuLaunchKernel from Triton, the Ex forms
// from cuBLASLt) and graph launches, whether or not the first calls made them.
constexpr std::array<CUpti_CallbackId, 6> runtime_launches = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000};
constexpr std::array<CUpti_CallbackId, 6> driver_launches = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,   CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz};

// The callback domain of each API activity kind.
constexpr std::array<std::pair<CUpti_CallbackDomain, CUpti_ActivityKind>, 2> api_domains{{
    {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_ACTIVITY_KIND_RUNTIME},
    {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_ACTIVITY_KIND_DRIVER},
}};

CUpti_CallbackDomain domain_of(CUpti_ActivityKind api_kind) {
  for (const auto& [domain, kind] : api_domains) {
    if (kind == api_kind) {
      return domain;
    }
  }
  return CUPTI_CB_DOMAIN_INVALID;
}

} // namespace

CUpti_ActivityKind api_kind_of(CUpti_CallbackDomain domain) {
  for (const auto& [ours, kind] : api_domains) {
    if (ours == domain) {
      return kind;
    }
  }
  return CUPTI_ACTIVITY_KIND_INVALID;
}

std::vector<watched_call> calls_to_watch(const activity_log& first_calls) {
  std::vector<watched_call> calls;
  const auto add = [&](CUpti_CallbackDomain domain, const auto& cbids) {
    for (const auto cbid : cbids) {
      calls.push_back({domain, cbid});
    }
  };
  add(CUPTI_CB_DOMAIN_RUNTIME_API, runtime_launches);
  add(CUPTI_CB_DOMAIN_DRIVER_API, driver_launches);
  add(CUPTI_CB_DOMAIN_RUNTIME_API, host_wait_cbids(CUPTI_ACTIVITY_KIND_RUNTIME));
  add(CUPTI_CB_DOMAIN_DRIVER_API, host_wait_cbids(CUPTI_ACTIVITY_KIND_DRIVER));
  // The calls whose correlation id a GPU record carries: the ones that launched it.
  std::unordered_set<std::uint32_t> launched;
  for (const gpu_activity& a : first_calls.gpu) {
    launched.insert(a.correlation_id);
  }
  for (const api_call& call : first_calls.api_calls) {
    if (launched.contains(call.correlation_id) &&
        domain_of(call.api_kind) != CUPTI_CB_DOMAIN_INVALID) {
      calls.push_back({domain_of(call.api_kind), call.cbid});
    }
  }
  std::sort(calls.begin(), calls.end());
  calls.erase(std::unique(calls.begin(), calls.end()), calls.end());
  return calls;
}

} // namespace kerntime::detail
