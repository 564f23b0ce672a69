#pragma once
// The CUPTI Profiler Host API, bound from the libcupti that timing loaded. It needs no GPU: it
// knows each chip's metrics and counter layout by the chip's name ("GH100"), so metric names and
// pass counts can be checked before any device work. A CUPTI without these entry points still
// times.

#include <cupti_profiler_host.h>

#include <string>
#include <variant>

#include "kerntime/errors.hpp"

namespace kerntime::detail {

struct cupti_library;

struct profiler_host_library {
  CUptiResult (*get_supported_chips)(CUpti_Profiler_Host_GetSupportedChips_Params*) = nullptr;
  CUptiResult (*initialize)(CUpti_Profiler_Host_Initialize_Params*) = nullptr;
  CUptiResult (*deinitialize)(CUpti_Profiler_Host_Deinitialize_Params*) = nullptr;
  CUptiResult (*get_base_metrics)(CUpti_Profiler_Host_GetBaseMetrics_Params*) = nullptr;
  CUptiResult (*get_sub_metrics)(CUpti_Profiler_Host_GetSubMetrics_Params*) = nullptr;
  CUptiResult (*config_add_metrics)(CUpti_Profiler_Host_ConfigAddMetrics_Params*) = nullptr;
  CUptiResult (*get_config_image_size)(CUpti_Profiler_Host_GetConfigImageSize_Params*) = nullptr;
  CUptiResult (*get_config_image)(CUpti_Profiler_Host_GetConfigImage_Params*) = nullptr;
  CUptiResult (*get_num_of_passes)(CUpti_Profiler_Host_GetNumOfPasses_Params*) = nullptr;
  CUptiResult (*evaluate_to_gpu_values)(CUpti_Profiler_Host_EvaluateToGpuValues_Params*) = nullptr;
  const cupti_library* cupti = nullptr; // for describe()
};

// The Host API (or, during the counter pass, the range profiler) cannot be used: counters
// cannot be planned or collected. Timing is not affected.
class counters_unavailable : public error {
public:
  explicit counters_unavailable(std::string reason)
      : error("hardware counters unavailable: " + reason), reason_(std::move(reason)) {}
  [[nodiscard]] error_kind kind() const noexcept override { return error_kind::cupti_unavailable; }
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

private:
  std::string reason_;
};

// The Host API of the process-wide CUPTI (load_cupti), bound once. On failure: why, in words.
[[nodiscard]] std::variant<const profiler_host_library*, std::string> load_profiler_host();

} // namespace kerntime::detail
