#include "cupti/current_context.hpp"

#include <cuda_runtime_api.h>

namespace kerntime::detail {

namespace {

// The driver's entry point `name` (a CUDA 12 signature); null when the driver cannot be asked.
void* driver_entry(const char* name) noexcept {
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult status{};
  if (cudaGetDriverEntryPointByVersion(name, &entry, 12000, cudaEnableDefault, &status) !=
      cudaSuccess) {
    return nullptr;
  }
  return entry;
}

} // namespace

CUcontext current_context() noexcept {
  void* const get_current = driver_entry("cuCtxGetCurrent");
  CUcontext context = nullptr;
  if (get_current == nullptr ||
      reinterpret_cast<CUresult (*)(CUcontext*)>(get_current)(&context) != CUDA_SUCCESS) {
    return nullptr;
  }
  return context;
}

bool make_current(CUcontext context) noexcept {
  void* const set_current = driver_entry("cuCtxSetCurrent");
  return set_current != nullptr &&
         reinterpret_cast<CUresult (*)(CUcontext)>(set_current)(context) == CUDA_SUCCESS;
}

} // namespace kerntime::detail
