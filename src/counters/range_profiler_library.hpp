#pragma once
// CUPTI's target-side profiling entry points, bound from the libcupti that timing loaded: profiler
// initialisation, the device check, the chip's name, and the range profiler that collects counters
// on the GPU (cupti_range_profiler.h). A CUPTI without them still times.

#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <string>
#include <variant>

namespace kerntime::detail {

struct cupti_library;

struct range_profiler_library {
  CUptiResult (*profiler_initialize)(CUpti_Profiler_Initialize_Params*) = nullptr;
  CUptiResult (*profiler_deinitialize)(CUpti_Profiler_DeInitialize_Params*) = nullptr;
  CUptiResult (*device_supported)(CUpti_Profiler_DeviceSupported_Params*) = nullptr;
  CUptiResult (*device_chip_name)(CUpti_Device_GetChipName_Params*) = nullptr;
  CUptiResult (*enable)(CUpti_RangeProfiler_Enable_Params*) = nullptr;
  CUptiResult (*disable)(CUpti_RangeProfiler_Disable_Params*) = nullptr;
  CUptiResult (*counter_data_size)(CUpti_RangeProfiler_GetCounterDataSize_Params*) = nullptr;
  CUptiResult (*counter_data_initialize)(CUpti_RangeProfiler_CounterDataImage_Initialize_Params*) =
      nullptr;
  CUptiResult (*set_config)(CUpti_RangeProfiler_SetConfig_Params*) = nullptr;
  CUptiResult (*start)(CUpti_RangeProfiler_Start_Params*) = nullptr;
  CUptiResult (*stop)(CUpti_RangeProfiler_Stop_Params*) = nullptr;
  CUptiResult (*decode)(CUpti_RangeProfiler_DecodeData_Params*) = nullptr;
  CUptiResult (*counter_data_info)(CUpti_RangeProfiler_GetCounterDataInfo_Params*) = nullptr;
  CUptiResult (*range_info)(CUpti_RangeProfiler_CounterData_GetRangeInfo_Params*) = nullptr;
};

// The range profiler of the process-wide CUPTI (load_cupti), bound once. On failure: why.
[[nodiscard]] std::variant<const range_profiler_library*, std::string> load_range_profiler();

} // namespace kerntime::detail
