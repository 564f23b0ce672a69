#pragma once
// One CUPTI Profiler Host API object for one chip: the metric configuration being built, the
// configuration image the range profiler is set up with, its pass count, and the evaluation of a
// counter data image into metric values. Needs no GPU but for what it evaluates.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "counters/profiler_host_library.hpp"

namespace kerntime::detail {

// A CUPTI profiler parameter struct, zeroed, with the size CUPTI reads to know its version.
template <typename Params> Params profiler_params(std::size_t struct_size) {
  Params params{};
  params.structSize = struct_size;
  return params;
}

// The chips the Host API knows ("GH100", "GB100", …). Throws counters_unavailable.
[[nodiscard]] std::vector<std::string> supported_chips(const profiler_host_library& host);

class host_object {
public:
  // Throws counters_unavailable when the Host API refuses the chip.
  host_object(const profiler_host_library& host, const std::string& chip);
  host_object(const host_object&) = delete;
  host_object& operator=(const host_object&) = delete;
  host_object(host_object&&) = delete;
  host_object& operator=(host_object&&) = delete;
  ~host_object();

  // False when the chip does not know a name (CUPTI_ERROR_INVALID_PARAMETER, the whole call
  // refused); other failures throw counters_unavailable.
  [[nodiscard]] bool add_metrics(const std::vector<const char*>& names);

  // The configuration of the metrics added so far, for cuptiRangeProfilerSetConfig.
  [[nodiscard]] std::vector<std::uint8_t> config_image();
  // The replay passes of a configuration image (config_image()).
  [[nodiscard]] std::size_t passes(const std::vector<std::uint8_t>& config_image) const;

  // Base metrics ("dram__bytes_read") of every metric type, each with its type.
  [[nodiscard]] std::vector<std::pair<std::string_view, CUpti_MetricType>> base_metrics();
  // Roll-up and submetric suffixes (".sum", ".avg.pct_of_peak_sustained_elapsed") of a base.
  [[nodiscard]] std::vector<std::string_view> sub_metrics(std::string_view base,
                                                          CUpti_MetricType type);

  // The values of `names` in range `range` of a decoded counter data image; returns the CUPTI
  // result (the caller names the step).
  [[nodiscard]] CUptiResult evaluate(std::span<const std::uint8_t> counter_data, std::size_t range,
                                     const std::vector<const char*>& names,
                                     std::vector<double>& values);

private:
  void check(CUptiResult result, const char* call) const;

  const profiler_host_library& host_;
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

// "CUPTI_ERROR_… (…)": the result in words, from the loaded CUPTI when it can say.
[[nodiscard]] std::string describe(const profiler_host_library& host, CUptiResult result);

} // namespace kerntime::detail
