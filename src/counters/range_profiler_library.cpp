#include "counters/range_profiler_library.hpp"

#include <fmt/format.h>

#include "cupti/cupti_library.hpp"

namespace kerntime::detail {
namespace {

std::variant<const range_profiler_library*, std::string> load_once() {
  const auto loaded = load_cupti();
  if (const auto* why = std::get_if<std::string>(&loaded)) {
    return *why;
  }
  void* const handle = std::get<const cupti_library*>(loaded)->handle;
  static range_profiler_library library;
  std::string missing;
  bind_cupti_symbol(handle, "cuptiProfilerInitialize", library.profiler_initialize, missing);
  bind_cupti_symbol(handle, "cuptiProfilerDeInitialize", library.profiler_deinitialize, missing);
  bind_cupti_symbol(handle, "cuptiProfilerDeviceSupported", library.device_supported, missing);
  bind_cupti_symbol(handle, "cuptiDeviceGetChipName", library.device_chip_name, missing);
  bind_cupti_symbol(handle, "cuptiRangeProfilerEnable", library.enable, missing);
  bind_cupti_symbol(handle, "cuptiRangeProfilerDisable", library.disable, missing);
  bind_cupti_symbol(handle, "cuptiRangeProfilerGetCounterDataSize", library.counter_data_size,
                    missing);
  bind_cupti_symbol(handle, "cuptiRangeProfilerCounterDataImageInitialize",
                    library.counter_data_initialize, missing);
  bind_cupti_symbol(handle, "cuptiRangeProfilerSetConfig", library.set_config, missing);
  bind_cupti_symbol(handle, "cuptiRangeProfilerStart", library.start, missing);
  bind_cupti_symbol(handle, "cuptiRangeProfilerStop", library.stop, missing);
  bind_cupti_symbol(handle, "cuptiRangeProfilerDecodeData", library.decode, missing);
  bind_cupti_symbol(handle, "cuptiRangeProfilerGetCounterDataInfo", library.counter_data_info,
                    missing);
  bind_cupti_symbol(handle, "cuptiRangeProfilerCounterDataGetRangeInfo", library.range_info,
                    missing);
  if (!missing.empty()) {
    return fmt::format("the loaded CUPTI lacks the range profiler ({})", missing);
  }
  return &library;
}

} // namespace

std::variant<const range_profiler_library*, std::string> load_range_profiler() {
  return load_once_per_process<range_profiler_library>(load_once);
}

} // namespace kerntime::detail
