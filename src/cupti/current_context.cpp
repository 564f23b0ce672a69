#include "cupti/current_context.hpp"

#include <cuda_runtime_api.h>

namespace kerntime::detail {

CUcontext current_context() noexcept {
  void* get_current = nullptr;
  cudaDriverEntryPointQueryResult status{};
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &get_current, 12000, cudaEnableDefault,
                                       &status) != cudaSuccess ||
      get_current == nullptr) {
    return nullptr;
  }
  CUcontext context = nullptr;
  if (reinterpret_cast<CUresult (*)(CUcontext*)>(get_current)(&context) != CUDA_SUCCESS) {
    return nullptr;
  }
  return context;
}

} // namespace kerntime::detail
