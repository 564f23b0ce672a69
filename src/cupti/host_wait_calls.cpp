#include "cupti/host_wait_calls.hpp"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include <array>

namespace kerntime::detail {
namespace {

struct known_call {
  std::uint32_t cbid;
  host_wait_kind kind;
  std::string_view name;
};

// The per-thread-stream (_ptds, _ptsz) and versioned entry points report under the plain name.
constexpr std::array<known_call, 22> runtime_calls{{
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, host_wait_kind::copy, "cudaMemcpy"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020, host_wait_kind::copy, "cudaMemcpy2D"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromArray_v3020, host_wait_kind::copy,
     "cudaMemcpyFromArray"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DFromArray_v3020, host_wait_kind::copy,
     "cudaMemcpy2DFromArray"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_v3020, host_wait_kind::copy, "cudaMemcpyToSymbol"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020, host_wait_kind::copy,
     "cudaMemcpyFromSymbol"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaThreadSynchronize_v3020, host_wait_kind::synchronize,
     "cudaThreadSynchronize"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, host_wait_kind::synchronize,
     "cudaStreamSynchronize"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020, host_wait_kind::synchronize,
     "cudaEventSynchronize"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_v3020, host_wait_kind::copy, "cudaMemcpy3D"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeer_v4000, host_wait_kind::copy, "cudaMemcpyPeer"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DPeer_v4000, host_wait_kind::copy, "cudaMemcpy3DPeer"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, host_wait_kind::synchronize,
     "cudaDeviceSynchronize"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000, host_wait_kind::copy, "cudaMemcpy"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_ptds_v7000, host_wait_kind::copy, "cudaMemcpy2D"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromArray_ptds_v7000, host_wait_kind::copy,
     "cudaMemcpyFromArray"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DFromArray_ptds_v7000, host_wait_kind::copy,
     "cudaMemcpy2DFromArray"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_ptds_v7000, host_wait_kind::copy,
     "cudaMemcpyToSymbol"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_ptds_v7000, host_wait_kind::copy,
     "cudaMemcpyFromSymbol"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000, host_wait_kind::synchronize,
     "cudaStreamSynchronize"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_ptds_v7000, host_wait_kind::copy, "cudaMemcpy3D"},
    {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DPeer_ptds_v7000, host_wait_kind::copy,
     "cudaMemcpy3DPeer"},
}};

constexpr std::array<known_call, 20> driver_calls{{
    {CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, host_wait_kind::synchronize, "cuCtxSynchronize"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH, host_wait_kind::copy, "cuMemcpyDtoH"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoH, host_wait_kind::copy, "cuMemcpyAtoH"},
    {CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize, host_wait_kind::synchronize, "cuEventSynchronize"},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, host_wait_kind::synchronize,
     "cuStreamSynchronize"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpy_v2, host_wait_kind::copy, "cuMemcpy"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, host_wait_kind::copy, "cuMemcpyDtoH"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoH_v2, host_wait_kind::copy, "cuMemcpyAtoH"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2, host_wait_kind::copy, "cuMemcpy2D"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2, host_wait_kind::copy, "cuMemcpy3D"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpy, host_wait_kind::copy, "cuMemcpy"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer, host_wait_kind::copy, "cuMemcpyPeer"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds, host_wait_kind::copy, "cuMemcpyDtoH"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoH_v2_ptds, host_wait_kind::copy, "cuMemcpyAtoH"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2_ptds, host_wait_kind::copy, "cuMemcpy2D"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2_ptds, host_wait_kind::copy, "cuMemcpy3D"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds, host_wait_kind::copy, "cuMemcpy"},
    {CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer_ptds, host_wait_kind::copy, "cuMemcpyPeer"},
    {CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz, host_wait_kind::synchronize,
     "cuStreamSynchronize"},
    {CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2, host_wait_kind::synchronize, "cuCtxSynchronize"},
}};

template <std::size_t n>
host_wait_call find(const std::array<known_call, n>& calls, std::uint32_t cbid) {
  for (const auto& call : calls) {
    if (call.cbid == cbid) {
      return {call.kind, call.name};
    }
  }
  return {};
}

} // namespace

std::vector<std::uint32_t> host_wait_cbids(CUpti_ActivityKind api_kind) {
  std::vector<std::uint32_t> cbids;
  const auto add = [&](const auto& calls) {
    for (const auto& call : calls) {
      cbids.push_back(call.cbid);
    }
  };
  if (api_kind == CUPTI_ACTIVITY_KIND_RUNTIME) {
    add(runtime_calls);
  } else if (api_kind == CUPTI_ACTIVITY_KIND_DRIVER) {
    add(driver_calls);
  }
  return cbids;
}

host_wait_call host_wait_of(CUpti_ActivityKind api_kind, std::uint32_t cbid) {
  switch (api_kind) {
  case CUPTI_ACTIVITY_KIND_RUNTIME:
    return find(runtime_calls, cbid);
  case CUPTI_ACTIVITY_KIND_DRIVER:
    return find(driver_calls, cbid);
  default:
    return {};
  }
}

} // namespace kerntime::detail
