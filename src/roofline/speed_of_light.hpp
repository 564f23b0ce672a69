#pragma once
// A state's speed of light from its declared work, its latency and the GPU's peaks. Pure: the
// command line applies it to every run once they are measured; tests feed it numbers.

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "kerntime/result.hpp"
#include "kerntime/roofline.hpp"
#include "roofline/calibration_file.hpp"
#include "roofline/peak_table.hpp"
#include "roofline/peaks_file.hpp"

namespace kerntime::detail {

// The declared work of one iteration and how long it took.
struct declared_work {
  std::optional<double> flops;
  std::optional<flop_precision> precision;
  std::optional<double> bytes;
  double latency_ns = 0;
  std::size_t l2_bytes =
      0; // the device's L2: whether the data could have come from it (0: unknown)
};

// nullopt when neither bound can be computed (no declared work, or no peak for it).
[[nodiscard]] std::optional<speed_of_light>
compute_speed_of_light(const declared_work& work, const device_peaks& peaks,
                       const calibration* achievable = nullptr,
                       const std::string& achievable_source = {});

// What `run` was told about peaks: a --peaks file and a --calibration file, both optional.
struct roofline_settings {
  std::optional<peak_overrides> overrides;
  std::optional<calibration> achievable;
  std::string achievable_source;
};

// The measured DRAM bytes per second of a counters block (whole iteration and each kernel) as a
// fraction of the peak DRAM bandwidth; nothing when counters were not measured or there is no peak.
void add_counter_fractions(counters_summary& counters, const device_peaks& peaks);

} // namespace kerntime::detail
