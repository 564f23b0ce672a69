#pragma once
// Questions the tests ask of a measurement_result's kernel breakdown.

#include <kerntime/result.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <string_view>

namespace kerntime::gpu_tests {

// GPU records per iteration, every kernel, memset and memcpy row added up.
inline double records_per_iteration(const measurement_result& r) {
  return std::accumulate(
      r.kernels.begin(), r.kernels.end(), 0.0,
      [](double sum, const kernel_summary& k) { return sum + k.calls_per_iteration; });
}

inline double sum_of_shares(const measurement_result& r) {
  return std::accumulate(r.kernels.begin(), r.kernels.end(), 0.0,
                         [](double sum, const kernel_summary& k) { return sum + k.share; });
}

inline double sum_of_kernel_means_ns(const measurement_result& r) {
  return std::accumulate(r.kernels.begin(), r.kernels.end(), 0.0,
                         [](double sum, const kernel_summary& k) { return sum + k.mean_ns; });
}

// The rows whose name contains `part`.
inline long count_rows_named(const measurement_result& r, std::string_view part) {
  return std::count_if(r.kernels.begin(), r.kernels.end(), [&](const kernel_summary& k) {
    return k.name.find(part) != std::string::npos;
  });
}

inline const kernel_summary* find_row_named(const measurement_result& r, std::string_view part) {
  const auto it = std::find_if(r.kernels.begin(), r.kernels.end(), [&](const kernel_summary& k) {
    return k.name.find(part) != std::string::npos;
  });
  return it == r.kernels.end() ? nullptr : &*it;
}

inline bool is_integral(double value) {
  return std::abs(value - std::round(value)) < 1e-9;
}

// "name ×calls (share)" for every row: printed when an assertion about the breakdown fails.
inline std::string describe_kernels(const measurement_result& r) {
  std::string text;
  for (const kernel_summary& k : r.kernels) {
    text += "  [" + std::string(to_string(k.kind)) + "] " + k.name +
            " calls/iter=" + std::to_string(k.calls_per_iteration) +
            " mean_ns=" + std::to_string(k.mean_ns) + " share=" + std::to_string(k.share) + "\n";
  }
  return text;
}

inline std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

} // namespace kerntime::gpu_tests
