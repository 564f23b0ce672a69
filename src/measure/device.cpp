#include "measure/device.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <map>
#include <mutex>

#include "cuda/gpu_code.hpp"
#include "flush/l2_flush.hpp"
#include "kerntime/cuda.hpp"
#include "kerntime/errors.hpp"

namespace kerntime::detail {

device_info read_current_device() {
  // Without a driver the runtime says "CUDA driver version is insufficient", which sends people
  // to upgrade a driver they do not have; the command line's device check says what it is.
  if (int driver = 0; cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0) {
    throw device_unavailable(
        "no CUDA device found: no NVIDIA driver is installed (libcuda.so.1 cannot be loaded); "
        "kerntime measures work on an NVIDIA GPU: run it on a machine with one and its driver");
  }
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
    throw device_unavailable(fmt::format(
        "no CUDA device found ({}); kerntime measures work on an NVIDIA GPU: run it on a machine "
        "with one and a working driver",
        e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports zero devices"));
  }
  int ordinal = 0;
  check_cuda(cudaGetDevice(&ordinal), "reading the current device");
  // The facts do not change while the process lives: read once per device (cudaGetDeviceProperties
  // alone takes a millisecond or more).
  static std::mutex mutex;
  static std::map<int, device_info> known;
  const std::lock_guard lock(mutex);
  if (const auto found = known.find(ordinal); found != known.end()) {
    return found->second;
  }
  device_info d;
  d.ordinal = ordinal;
  cudaDeviceProp props{};
  check_cuda(cudaGetDeviceProperties(&props, d.ordinal), "reading the device properties");
  d.name = props.name;
  d.compute_capability_major = props.major;
  d.compute_capability_minor = props.minor;
  d.multiprocessors = props.multiProcessorCount;
  d.l2_bytes = static_cast<std::size_t>(props.l2CacheSize);
  d.memory_bytes = props.totalGlobalMem;
  // Attributes, not cudaDeviceProp fields: CUDA 13 removed the clock fields from the struct.
  check_cuda(cudaDeviceGetAttribute(&d.peak_sm_clock_khz, cudaDevAttrClockRate, d.ordinal),
             "reading the peak SM clock");
  check_cuda(cudaDeviceGetAttribute(&d.memory_clock_khz, cudaDevAttrMemoryClockRate, d.ordinal),
             "reading the memory clock");
  check_cuda(
      cudaDeviceGetAttribute(&d.memory_bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, d.ordinal),
      "reading the memory bus width");
  check_cuda(cudaDriverGetVersion(&d.driver_version), "reading the driver version");
  check_cuda(cudaRuntimeGetVersion(&d.runtime_version), "reading the runtime version");
  // A GPU this build has no code for fails here, naming what to rebuild with, rather than at the
  // first flush as a CUDA error of the benchmark. Another error is left to the checks that follow.
  const cudaError_t loads = l2_flush::kernel_loads();
  if (is_gpu_code_error(loads)) {
    (void)cudaGetLastError(); // not sticky: the caller may go on with other work
    throw device_unavailable(
        no_gpu_code_message({d.compute_capability_major, d.compute_capability_minor, d.name},
                            this_build_gpu_code(), cudaGetErrorName(loads)));
  }
  if (loads != cudaSuccess) {
    return d; // not remembered: asked again next time
  }
  known.emplace(ordinal, d);
  return d;
}

} // namespace kerntime::detail
