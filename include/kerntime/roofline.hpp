#pragma once
// Speed of light: how close a state's declared work (flops of one precision, bytes moved) came
// to the GPU's peak compute and DRAM bandwidth, and the roofline time (the slower of the two
// bounds). Peaks come from a table per architecture (docs/speed-of-light.md), a --peaks file, and,
// as "achievable", from `kerntime calibrate`.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kerntime {

// The unit that does a benchmark's arithmetic: the data type and whether tensor cores run it.
enum class flop_precision {
  fp64,        // CUDA cores (DFMA)
  fp64_tensor, // DMMA (sm_80, sm_90, sm_100)
  fp32,        // CUDA cores (FFMA)
  fp16,        // CUDA cores (HFMA2)
  bf16,        // CUDA cores (HFMA2.BF16)
  tf32_tensor,
  fp16_tensor, // fp32 accumulation
  bf16_tensor, // fp32 accumulation
  fp8_tensor,  // e4m3/e5m2, fp32 accumulation (sm_89 and later)
  int8_tensor, // int32 accumulation; "flops" count integer operations
};
[[nodiscard]] std::string_view to_string(flop_precision p);
[[nodiscard]] std::optional<flop_precision> parse_flop_precision(std::string_view text);
// "fp64, fp64_tensor, …": every name, for messages.
[[nodiscard]] std::string flop_precision_names();

enum class roofline_bound { compute, memory };
[[nodiscard]] std::string_view to_string(roofline_bound b);
[[nodiscard]] std::optional<roofline_bound> parse_roofline_bound(std::string_view text);

// What `kerntime calibrate` measured on this GPU for the state's precision and for copies, and
// the state's share of it.
struct achievable_speed_of_light {
  std::optional<double> flops_per_s; // empty: not calibrated for the state's precision
  std::optional<double> bytes_per_s;
  std::optional<double> compute_pct;
  std::optional<double> memory_pct;
  std::string source; // "calibration.json (NVIDIA H200, 2025-…)"
};

// One state's speed of light. Percentages are of the peak: 100 × achieved / peak.
struct speed_of_light {
  std::optional<flop_precision> precision;       // empty: flops declared without one, or none
  std::optional<double> peak_flops_per_s;        // for `precision`
  std::optional<double> peak_bytes_per_s;        // DRAM
  std::optional<double> compute_pct;             // needs flops, a precision and its peak
  std::optional<double> memory_pct;              // needs bytes and the DRAM peak
  roofline_bound bound = roofline_bound::memory; // the bound whose time is larger
  double roofline_ns = 0;                        // max(flops / peak flops, bytes / peak bytes)
  std::string peak_source;                       // "table sm_90: 132 SMs × 1980 MHz …"
  std::optional<achievable_speed_of_light> achievable;
  // Figures that cannot be plain facts, each said with why: memory above 100 % of the DRAM peak
  // (the bytes came from L2), a time faster than the roofline (the declared work is wrong, or
  // the work did not run).
  std::vector<std::string> notes;
};

} // namespace kerntime
