#pragma once
// Why the counters block says `unavailable`: the reason shown for the CUPTI error that stopped
// the counter pass and the step that returned it. A counter failure never fails the timing
// result; it only has to say why, and what would fix it, in words a user can act on.

#include <cupti_result.h>

#include <string>
#include <string_view>

namespace kerntime::detail {

// The steps of the counter pass that can fail.
enum class counter_step {
  profiler_initialise, // cuptiProfilerInitialize
  device_check,        // cuptiProfilerDeviceSupported
  enable,              // cuptiRangeProfilerEnable on the work's context
  set_config,          // the metrics' configuration: cuptiProfilerHostConfigAddMetrics, then
                       // cuptiRangeProfilerSetConfig
  start,               // cuptiRangeProfilerStart
  stop,                // cuptiRangeProfilerStop (the replayed launches ran)
  decode,              // cuptiRangeProfilerDecodeData
  evaluate,            // cuptiProfilerHostEvaluateToGpuValues
};
[[nodiscard]] std::string_view to_string(counter_step s);

// The code's name as cupti_result.h spells it ("CUPTI_ERROR_HARDWARE_BUSY"); a code the header
// of this build does not list as its number ("CUptiResult 1234"). Needs no loaded CUPTI.
[[nodiscard]] std::string cupti_result_name(CUptiResult code);

// The `unavailable` reason, ending with the code's name and the step, e.g. "another profiler
// holds the GPU's performance counters ... (CUPTI_ERROR_HARDWARE_BUSY from range profiler
// start)". A code without a specific reason gets a generic one naming it.
[[nodiscard]] std::string counter_failure_reason(CUptiResult code, counter_step step);

} // namespace kerntime::detail
