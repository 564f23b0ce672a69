#include "counters/host_object.hpp"

#include <fmt/format.h>

#include "cupti/cupti_library.hpp"

namespace kerntime::detail {

std::string describe(const profiler_host_library& host, CUptiResult result) {
  return host.cupti != nullptr ? host.cupti->describe(result)
                               : fmt::format("CUPTI error {}", static_cast<int>(result));
}

std::vector<std::string> supported_chips(const profiler_host_library& host) {
  auto params = profiler_params<CUpti_Profiler_Host_GetSupportedChips_Params>(
      CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE);
  if (const auto result = host.get_supported_chips(&params); result != CUPTI_SUCCESS) {
    throw counters_unavailable(
        fmt::format("cuptiProfilerHostGetSupportedChips: {}", describe(host, result)));
  }
  return {params.ppChipNames, params.ppChipNames + params.numChips};
}

host_object::host_object(const profiler_host_library& host, const std::string& chip) : host_(host) {
  auto params = profiler_params<CUpti_Profiler_Host_Initialize_Params>(
      CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  params.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  params.pChipName = chip.c_str();
  if (const auto result = host_.initialize(&params); result != CUPTI_SUCCESS) {
    throw counters_unavailable(
        fmt::format("cuptiProfilerHostInitialize for chip {}: {}", chip, describe(host_, result)));
  }
  object_ = params.pHostObject;
}

host_object::~host_object() {
  auto params = profiler_params<CUpti_Profiler_Host_Deinitialize_Params>(
      CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
  params.pHostObject = object_;
  (void)host_.deinitialize(&params);
}

bool host_object::add_metrics(const std::vector<const char*>& names) {
  auto params = profiler_params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  params.pHostObject = object_;
  params.ppMetricNames = const_cast<const char**>(names.data());
  params.numMetrics = names.size();
  const auto result = host_.config_add_metrics(&params);
  if (result == CUPTI_ERROR_INVALID_PARAMETER) {
    return false;
  }
  check(result, "cuptiProfilerHostConfigAddMetrics");
  return true;
}

std::vector<std::uint8_t> host_object::config_image() {
  auto size = profiler_params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = object_;
  check(host_.get_config_image_size(&size), "cuptiProfilerHostGetConfigImageSize");
  std::vector<std::uint8_t> image(size.configImageSize);
  auto get = profiler_params<CUpti_Profiler_Host_GetConfigImage_Params>(
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  get.pHostObject = object_;
  get.configImageSize = image.size();
  get.pConfigImage = image.data();
  check(host_.get_config_image(&get), "cuptiProfilerHostGetConfigImage");
  return image;
}

std::size_t host_object::passes(const std::vector<std::uint8_t>& config_image) const {
  auto passes = profiler_params<CUpti_Profiler_Host_GetNumOfPasses_Params>(
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  passes.configImageSize = config_image.size();
  passes.pConfigImage = const_cast<std::uint8_t*>(config_image.data());
  check(host_.get_num_of_passes(&passes), "cuptiProfilerHostGetNumOfPasses");
  return passes.numOfPasses;
}

std::vector<std::pair<std::string_view, CUpti_MetricType>> host_object::base_metrics() {
  std::vector<std::pair<std::string_view, CUpti_MetricType>> found;
  for (const auto type :
       {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
    auto params = profiler_params<CUpti_Profiler_Host_GetBaseMetrics_Params>(
        CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE);
    params.pHostObject = object_;
    params.metricType = type;
    check(host_.get_base_metrics(&params), "cuptiProfilerHostGetBaseMetrics");
    for (std::size_t i = 0; i < params.numMetrics; ++i) {
      found.emplace_back(params.ppMetricNames[i], type);
    }
  }
  return found;
}

std::vector<std::string_view> host_object::sub_metrics(std::string_view base,
                                                       CUpti_MetricType type) {
  const std::string name(base);
  auto params = profiler_params<CUpti_Profiler_Host_GetSubMetrics_Params>(
      CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE);
  params.pHostObject = object_;
  params.metricType = type;
  params.pMetricName = name.c_str();
  check(host_.get_sub_metrics(&params), "cuptiProfilerHostGetSubMetrics");
  return {params.ppSubMetrics, params.ppSubMetrics + params.numOfSubmetrics};
}

CUptiResult host_object::evaluate(std::span<const std::uint8_t> counter_data, std::size_t range,
                                  const std::vector<const char*>& names,
                                  std::vector<double>& values) {
  values.assign(names.size(), 0.0);
  auto params = profiler_params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
      CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
  params.pHostObject = object_;
  params.pCounterDataImage = counter_data.data();
  params.counterDataImageSize = counter_data.size();
  params.rangeIndex = range;
  params.ppMetricNames = const_cast<const char**>(names.data());
  params.numMetrics = names.size();
  params.pMetricValues = values.data();
  return host_.evaluate_to_gpu_values(&params);
}

void host_object::check(CUptiResult result, const char* call) const {
  if (result != CUPTI_SUCCESS) {
    throw counters_unavailable(fmt::format("{}: {}", call, describe(host_, result)));
  }
}

} // namespace kerntime::detail
