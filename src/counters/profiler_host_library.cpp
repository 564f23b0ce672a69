#include "counters/profiler_host_library.hpp"

#include <fmt/format.h>

#include "cupti/cupti_library.hpp"

namespace kerntime::detail {
namespace {

std::variant<const profiler_host_library*, std::string> load_once() {
  const auto loaded = load_cupti();
  if (const auto* why = std::get_if<std::string>(&loaded)) {
    return *why;
  }
  const cupti_library& cupti = *std::get<const cupti_library*>(loaded);
  static profiler_host_library library;
  library.cupti = &cupti;
  std::string missing;
  bind_cupti_symbol(cupti.handle, "cuptiProfilerHostGetSupportedChips", library.get_supported_chips,
                    missing);
  bind_cupti_symbol(cupti.handle, "cuptiProfilerHostInitialize", library.initialize, missing);
  bind_cupti_symbol(cupti.handle, "cuptiProfilerHostDeinitialize", library.deinitialize, missing);
  bind_cupti_symbol(cupti.handle, "cuptiProfilerHostGetBaseMetrics", library.get_base_metrics,
                    missing);
  bind_cupti_symbol(cupti.handle, "cuptiProfilerHostGetSubMetrics", library.get_sub_metrics,
                    missing);
  bind_cupti_symbol(cupti.handle, "cuptiProfilerHostConfigAddMetrics", library.config_add_metrics,
                    missing);
  bind_cupti_symbol(cupti.handle, "cuptiProfilerHostGetConfigImageSize",
                    library.get_config_image_size, missing);
  bind_cupti_symbol(cupti.handle, "cuptiProfilerHostGetConfigImage", library.get_config_image,
                    missing);
  bind_cupti_symbol(cupti.handle, "cuptiProfilerHostGetNumOfPasses", library.get_num_of_passes,
                    missing);
  bind_cupti_symbol(cupti.handle, "cuptiProfilerHostEvaluateToGpuValues",
                    library.evaluate_to_gpu_values, missing);
  if (!missing.empty()) {
    return fmt::format("the loaded CUPTI lacks the Profiler Host API ({})", missing);
  }
  return &library;
}

} // namespace

std::variant<const profiler_host_library*, std::string> load_profiler_host() {
  return load_once_per_process<profiler_host_library>(load_once);
}

} // namespace kerntime::detail
