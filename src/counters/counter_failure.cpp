#include "counters/counter_failure.hpp"

#include <fmt/format.h>

namespace kerntime::detail {

namespace {

// The reason for a code, or empty where the code has none of its own. The words come from
// cupti_result.h's description of each code and from what the issue observed (NOT_INITIALIZED
// after cuptiFinalize).
std::string specific_reason(CUptiResult code, counter_step step) {
  switch (code) {
  case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    return "insufficient privileges: the NVIDIA driver restricts the GPU performance counters to "
           "administrators (driver setting NVreg_RestrictProfilingToAdminUsers=1; NVIDIA's page "
           "ERR_NVGPUCTRPERM). Run as root or with CAP_SYS_ADMIN, or have an administrator load "
           "the driver with NVreg_RestrictProfilingToAdminUsers=0 (e.g. \"options nvidia "
           "NVreg_RestrictProfilingToAdminUsers=0\" in /etc/modprobe.d, then reload the driver)";
  case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
    return "vGPU: the hypervisor does not allow profiling on this virtual GPU (CUPTI's vGpu "
           "support level: disabled); the host's administrator can enable profiling for this vGPU";
  case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    return "vGPU: CUPTI does not profile this virtualized GPU (CUPTI's vGpu support level: "
           "unsupported)";
  case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    return "unsupported device: an NVIDIA Crypto Mining Processor (CMP), which CUPTI does not "
           "profile (CUPTI's cmp support level)";
  case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    return "unsupported device: SLI is enabled, and CUPTI does not profile SLI devices (CUPTI's "
           "sli support level)";
  case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    return "unsupported device: CUPTI does not profile this GPU under WSL (CUPTI's wsl support "
           "level)";
  case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    return "unsupported device: confidential computing mode is on, which forbids profiling "
           "(CUPTI's confidentialCompute support level)";
  case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    return "MIG: CUPTI does not profile this MIG instance; DRAM and L2 are shared with the other "
           "instances, so their metrics are n/a on a MIG slice. Profile on a GPU without MIG";
  case CUPTI_ERROR_HARDWARE_BUSY:
    return "another profiler holds the GPU's performance counters (Nsight Compute, another range "
           "profiler session, or DCGM profiling metrics); counters need them to themselves";
  case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    return "another profiler holds CUPTI (Nsight Systems, Nsight Compute or cuda-gdb launched the "
           "process, or another CUPTI subscriber is active); counters need CUPTI to themselves";
  case CUPTI_ERROR_DISABLED:
    return "another profiler holds CUPTI: CUPTI is disabled by a conflict with another enabled "
           "profiler";
  case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
    return "another profiler holds CUPTI: the legacy event/metric API is in use in this process, "
           "and it excludes the range profiler";
  case CUPTI_ERROR_NOT_INITIALIZED:
    if (step == counter_step::profiler_initialise) {
      return "a kerntime bug: the counter pass ran after timing had finalised CUPTI "
             "(cuptiFinalize), and the profiler cannot be initialised again in this process; the "
             "counter pass must run before CUPTI is finalised";
    }
    return "CUPTI could not initialise its connection to the CUDA driver";
  case CUPTI_ERROR_INVALID_METRIC_NAME:
  case CUPTI_ERROR_INVALID_METRIC_ID:
    return "a metric is not one of this chip's (metric names differ across chips; --metrics "
           "takes this chip's names)";
  case CUPTI_ERROR_INVALID_PARAMETER:
    // The Host API refuses a configuration with an unknown metric this way (docs/counters.md).
    if (step == counter_step::set_config) {
      return "a metric is not one of this chip's: the configuration of the metrics was refused "
             "(metric names differ across chips; --metrics takes this chip's names)";
    }
    return "";
  case CUPTI_ERROR_INVALID_CHIP_NAME:
    return "unsupported device: this CUPTI does not know the GPU's chip (a GPU newer than the "
           "CUDA toolkit's CUPTI; a newer CUPTI through KERNTIME_CUPTI_PATH may know it)";
  case CUPTI_ERROR_NOT_COMPATIBLE:
    return "the range profiler refused the operation in its current state: a profiler session may "
           "already be open on this context, or the work launched what auto range + kernel "
           "replay cannot profile, such as a graph launch or kernels running concurrently";
  case CUPTI_ERROR_NOT_SUPPORTED:
    if (step == counter_step::profiler_initialise || step == counter_step::device_check ||
        step == counter_step::enable) {
      return "unsupported device: the range profiler does not support this GPU or its "
             "configuration (it needs compute capability 7.5 or later)";
    }
    return "the range profiler does not support this work, such as graph launches or "
           "concurrent kernels under auto range + kernel replay";
  case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
    return "unsupported device: the profiler API in use does not support this GPU";
  case CUPTI_ERROR_OUT_OF_MEMORY:
    return "out of memory: kernel replay saves and restores the work's device memory between "
           "passes, and there was not enough memory for it";
  default:
    return "";
  }
}

} // namespace

std::string_view to_string(counter_step s) {
  switch (s) {
  case counter_step::profiler_initialise:
    return "profiler initialise";
  case counter_step::device_check:
    return "device check";
  case counter_step::enable:
    return "range profiler enable";
  case counter_step::set_config:
    return "range profiler set config";
  case counter_step::start:
    return "range profiler start";
  case counter_step::stop:
    return "range profiler stop";
  case counter_step::decode:
    return "range profiler decode";
  case counter_step::evaluate:
    return "metric evaluation";
  }
  return "unknown step";
}

std::string cupti_result_name(CUptiResult code) {
  switch (code) {
#define KERNTIME_CUPTI_CODE(name)                                                                  \
  case name:                                                                                       \
    return #name;
    KERNTIME_CUPTI_CODE(CUPTI_SUCCESS)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_INVALID_PARAMETER)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_INVALID_DEVICE)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_INVALID_CONTEXT)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_INVALID_EVENT_DOMAIN_ID)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_INVALID_EVENT_ID)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_INVALID_EVENT_NAME)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_INVALID_OPERATION)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_OUT_OF_MEMORY)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_HARDWARE)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_API_NOT_IMPLEMENTED)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_MAX_LIMIT_REACHED)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_NOT_READY)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_NOT_COMPATIBLE)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_NOT_INITIALIZED)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_INVALID_METRIC_ID)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_INVALID_METRIC_NAME)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_QUEUE_EMPTY)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_INVALID_HANDLE)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_INVALID_STREAM)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_INVALID_KIND)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_INVALID_EVENT_VALUE)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_DISABLED)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_INVALID_MODULE)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_INVALID_METRIC_VALUE)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_HARDWARE_BUSY)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_NOT_SUPPORTED)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_DEVICE)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_NON_P2P_DEVICES)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_WITH_MPS)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_CDP_TRACING_NOT_SUPPORTED)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_CUDA_COMPILER_NOT_COMPATIBLE)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_OPENACC_UNDEFINED_ROUTINE)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_INVALID_CHIP_NAME)
    KERNTIME_CUPTI_CODE(CUPTI_ERROR_UNKNOWN)
#undef KERNTIME_CUPTI_CODE
  default:
    return fmt::format("CUptiResult {}", static_cast<long long>(code));
  }
}

std::string counter_failure_reason(CUptiResult code, counter_step step) {
  std::string reason = specific_reason(code, step);
  if (reason.empty()) {
    reason = "CUPTI failed during the counter pass";
  }
  return fmt::format("{} ({} from {})", reason, cupti_result_name(code), to_string(step));
}

} // namespace kerntime::detail
