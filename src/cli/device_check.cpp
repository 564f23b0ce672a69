#include "cli/device_check.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <fmt/format.h>

namespace kerntime::detail {

std::optional<std::string> find_cuda_driver_problem() {
  // The driver's own library, asked its version: any call of the CUDA runtime would initialise
  // CUDA (cuInit, ~0.1 s on an H100 host) in a process that never uses it.
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  int driver = 0;
  if (library != nullptr) {
    using version_function = int (*)(int*);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): dlsym returns void*
    const auto version = reinterpret_cast<version_function>(dlsym(library, "cuDriverGetVersion"));
    if (version == nullptr || version(&driver) != 0) {
      driver = 0;
    }
    dlclose(library);
  }
  if (driver == 0) {
    return "no CUDA device found: no NVIDIA driver is installed (libcuda.so.1 cannot be loaded); "
           "run on a machine with an NVIDIA GPU and its driver";
  }
  return std::nullopt;
}

std::optional<std::string> find_cuda_device_problem() {
  if (auto problem = find_cuda_driver_problem()) {
    return problem;
  }
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    return fmt::format("no CUDA device found: {} ({}); run on a machine with an NVIDIA GPU and "
                       "its driver, and check CUDA_VISIBLE_DEVICES",
                       cudaGetErrorString(status), cudaGetErrorName(status));
  }
  if (count == 0) {
    return "no CUDA device found: the driver reports 0 devices; check CUDA_VISIBLE_DEVICES";
  }
  return std::nullopt;
}

std::optional<std::string> create_cuda_context() {
  if (const cudaError_t created = cudaFree(nullptr); created != cudaSuccess) {
    return fmt::format("the CUDA device cannot be used: {} ({}); check the driver and that no "
                       "other process holds the GPU in exclusive mode",
                       cudaGetErrorString(created), cudaGetErrorName(created));
  }
  return std::nullopt;
}

} // namespace kerntime::detail
