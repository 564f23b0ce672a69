#pragma once
// Who holds CUPTI's subscription when kerntime's own is refused, as the caller knows it. CUPTI's
// Activity API works without a subscriber, so kerntime may time beside another client, but only
// when that client is a torch.profiler that traces nothing now: otherwise both would take each
// other's records. Only the Python layer can see torch's profiler; the C++ API and the command
// line never grant sharing (docs/torch-profiler.md).

#include <functional>
#include <string_view>

namespace kerntime::detail {

enum class cupti_holder {
  unknown,                  // the caller cannot tell (the C++ API, the command line)
  idle_torch_profiler,      // the grant: Kineto holds the subscription and traces nothing
  torch_profiler_recording, // a trace is being recorded
  torch_profiler_armed,     // a schedule's warm-up step has prepared the next trace
  kineto_daemon,            // KINETO_USE_DAEMON: a daemon may start a trace at any moment
  injected_tool,            // CUDA_INJECTION64_PATH: Nsight Systems, Nsight Compute, a sanitizer
};

// The words every output gives for `holder` when kerntime falls back to CUDA events because of
// it: "torch.profiler is recording", "torch.profiler is armed (...)", "held by another tool (...)".
[[nodiscard]] std::string_view describe(cupti_holder holder);

struct cupti_sharing {
  cupti_holder holder = cupti_holder::unknown;
  // Asked again once CUPTI is detached, when it was shared: anything but idle_torch_profiler
  // means the profiler woke during the measurement, which is then invalid. May be empty.
  std::function<cupti_holder()> recheck;
};

} // namespace kerntime::detail
