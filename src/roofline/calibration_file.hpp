#pragma once
// What `kerntime calibrate` measured on one GPU (docs/speed-of-light.md): the copy bandwidth and
// a large GEMM's throughput per precision, at the clocks the card ran. `kerntime run
// --calibration FILE` shows them as the achievable peak next to the theoretical one.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "kerntime/roofline.hpp"

namespace kerntime::detail {

inline constexpr int calibration_version = 1;

struct calibration {
  std::string kerntime_version;
  std::string date; // ISO 8601, UTC
  std::string device_name;
  std::string device_uuid; // empty without NVML
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessors = 0;
  std::optional<double> sm_clock_mhz;     // on-GPU clock measured during the GEMMs
  std::size_t copy_bytes = 0;             // buffer size of the device-to-device copy
  std::optional<double> copy_bytes_per_s; // read + written, as add_bytes counts
  long long gemm_size = 0;                // M = N = K
  std::map<flop_precision, double> gemm_flops_per_s;
  std::map<flop_precision, std::string> not_measured; // precision → why
  double wall_seconds = 0;
};

[[nodiscard]] std::string calibration_to_json(const calibration& c);
// Throw kerntime::invalid_argument naming the file, what is wrong and the fix.
[[nodiscard]] calibration parse_calibration(std::string_view json_text, std::string_view source);
[[nodiscard]] calibration read_calibration(const std::filesystem::path& path);

// "calibration.json (NVIDIA H200, 2025-06-01T12:00:00Z)": how reports name it.
[[nodiscard]] std::string calibration_source(const calibration& c, std::string_view path);

} // namespace kerntime::detail
