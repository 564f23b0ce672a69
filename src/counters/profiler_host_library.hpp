#pragma once
// The CUPTI Profiler Host API, bound from the libcupti that timing loaded. It needs no GPU: it
// knows each chip's metrics and counter layout by the chip's name ("GH100"), so metric names and
// pass counts can be checked before any device work. A CUPTI without these entry points still
// times.

#include <cupti_profiler_host.h>

#include <string>
#include <variant>

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
  const cupti_library* cupti = nullptr; // for describe()
};

// The Host API of the process-wide CUPTI (load_cupti), bound once. On failure: why, in words.
[[nodiscard]] std::variant<const profiler_host_library*, std::string> load_profiler_host();

} // namespace kerntime::detail
