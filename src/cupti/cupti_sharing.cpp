#include "cupti/cupti_sharing.hpp"

namespace kerntime::detail {

std::string_view describe(cupti_holder holder) {
  switch (holder) {
  case cupti_holder::idle_torch_profiler:
    return "shared with an idle torch.profiler";
  case cupti_holder::torch_profiler_recording:
    return "torch.profiler is recording";
  case cupti_holder::torch_profiler_armed:
    return "torch.profiler is armed (a schedule's warm-up step has prepared its next trace)";
  case cupti_holder::kineto_daemon:
    return "torch.profiler may start at any moment (KINETO_USE_DAEMON is set)";
  case cupti_holder::injected_tool:
    return "held by another tool (CUDA_INJECTION64_PATH is set: Nsight Systems, Nsight Compute "
           "or compute-sanitizer is attached)";
  case cupti_holder::unknown:
    break;
  }
  return "held by another tool (a profiler such as torch.profiler, Nsight Systems or Nsight "
         "Compute, compute-sanitizer, or another kerntime)";
}

} // namespace kerntime::detail
