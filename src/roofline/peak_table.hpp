#pragma once
// The theoretical peaks of a GPU: per-SM per-clock throughput from a table per architecture, times
// the SM count and the maximum SM clock; DRAM from the memory clock and bus width. Every figure's
// source is in docs/speed-of-light.md. Pure: tests feed it an H200's and an A100's facts.

#include <map>
#include <optional>
#include <string>

#include "kerntime/result.hpp"
#include "kerntime/roofline.hpp"

namespace kerntime::detail {

struct device_peaks {
  std::map<flop_precision, double> flops_per_s; // a precision absent: the GPU has no such unit
  std::optional<double> bytes_per_s;            // DRAM, read + written
  std::string source;                           // where the figures come from
};

// The facts of a GPU the table needs.
struct peak_inputs {
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessors = 0;
  double sm_clock_mhz = 0;     // the maximum SM clock
  double memory_clock_mhz = 0; // as CUDA reports it (half the data rate)
  int memory_bus_width_bits = 0;
};

// From a result: the device, and the maximum SM clock NVML reports (CUDA's peak clock without it).
[[nodiscard]] peak_inputs peak_inputs_of(const measurement_result& result);

// Dense FLOP (2 per FMA) per clock per SM of `precision` on compute capability major.minor;
// empty where the architecture is not in the table or has no such unit (fp8 before sm_89).
[[nodiscard]] std::optional<double> flops_per_clock_per_sm(int major, int minor,
                                                           flop_precision precision);

// 2 × memory clock × bus width / 8 (double data rate; how CUDA reports HBM and GDDR clocks).
[[nodiscard]] std::optional<double> dram_bytes_per_s(const peak_inputs& gpu);

// The table's peaks for this GPU; nullopt when its architecture is not in the table (then only a
// --peaks file gives peaks).
[[nodiscard]] std::optional<device_peaks> table_peaks(const peak_inputs& gpu);

// Why table_peaks gives none for this GPU, in a reader's words: its architecture has no row
// (naming those that have one) or its SM count or clock is unknown; empty where it gives peaks.
[[nodiscard]] std::string no_table_peaks_reason(const peak_inputs& gpu);

} // namespace kerntime::detail
