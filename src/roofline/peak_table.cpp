#include "roofline/peak_table.hpp"

#include <array>

#include <fmt/format.h>

namespace kerntime::detail {
namespace {

// Dense FLOP per clock per SM (an FMA counts 2), in flop_precision order: fp64, fp64_tensor,
// fp32, fp16, bf16, tf32_tensor, fp16_tensor, bf16_tensor, fp8_tensor, int8_tensor. 0: no such
// unit. Derivations and NVIDIA's documents: docs/speed-of-light.md.
struct architecture_row {
  int major;
  int minor;
  std::array<double, 10> per_sm_per_clock;
};

constexpr std::array<architecture_row, 6> table{{
    // A100 (GA100): 32 FP64 + 64 FP32 lanes per SM, 4 third-generation tensor cores.
    {8, 0, {64, 128, 128, 512, 256, 1024, 2048, 2048, 0, 4096}},
    // GA10x (A10, A40, RTX A6000 full rate): 128 FP32 lanes, 2 FP64 lanes, no FP64 tensor, no FP8.
    {8, 6, {4, 0, 256, 256, 256, 512, 1024, 1024, 0, 2048}},
    // Ada (AD10x, L40S/RTX 6000 Ada full rate): 128 FP32 lanes, 2 FP64 lanes.
    {8, 9, {4, 0, 256, 256, 256, 512, 1024, 1024, 2048, 2048}},
    // H100/H200 (GH100): 64 FP64 + 128 FP32 lanes, 4 fourth-generation tensor cores.
    {9, 0, {128, 256, 256, 512, 512, 2048, 4096, 4096, 8192, 8192}},
    // B200 (GB100): fifth-generation tensor cores, twice Hopper's dense rate per SM.
    {10, 0, {128, 128, 256, 512, 512, 4096, 8192, 8192, 16384, 16384}},
    // Blackwell workstation/GeForce (GB20x): as Ada per SM.
    {12, 0, {4, 0, 256, 256, 256, 512, 1024, 1024, 2048, 2048}},
}};

const architecture_row* row_of(int major, int minor) {
  for (const auto& row : table) {
    if (row.major == major && row.minor == minor) {
      return &row;
    }
  }
  return nullptr;
}

} // namespace

peak_inputs peak_inputs_of(const measurement_result& result) {
  const device_info& d = result.device;
  peak_inputs gpu;
  gpu.compute_capability_major = d.compute_capability_major;
  gpu.compute_capability_minor = d.compute_capability_minor;
  gpu.multiprocessors = d.multiprocessors;
  gpu.sm_clock_mhz = result.telemetry.max_sm_clock_mhz ? *result.telemetry.max_sm_clock_mhz
                                                       : d.peak_sm_clock_khz / 1000.0;
  gpu.memory_clock_mhz = d.memory_clock_khz / 1000.0;
  gpu.memory_bus_width_bits = d.memory_bus_width_bits;
  return gpu;
}

std::optional<double> flops_per_clock_per_sm(int major, int minor, flop_precision precision) {
  const architecture_row* row = row_of(major, minor);
  if (row == nullptr) {
    return std::nullopt;
  }
  const double value = row->per_sm_per_clock.at(static_cast<std::size_t>(precision));
  return value > 0 ? std::optional<double>(value) : std::nullopt;
}

std::optional<double> dram_bytes_per_s(const peak_inputs& gpu) {
  if (!(gpu.memory_clock_mhz > 0) || gpu.memory_bus_width_bits <= 0) {
    return std::nullopt;
  }
  return 2.0 * gpu.memory_clock_mhz * 1e6 * gpu.memory_bus_width_bits / 8.0;
}

std::optional<device_peaks> table_peaks(const peak_inputs& gpu) {
  const int major = gpu.compute_capability_major;
  const int minor = gpu.compute_capability_minor;
  if (row_of(major, minor) == nullptr || gpu.multiprocessors <= 0 || !(gpu.sm_clock_mhz > 0)) {
    return std::nullopt;
  }
  device_peaks peaks;
  for (std::size_t i = 0; i < table.front().per_sm_per_clock.size(); ++i) {
    const auto precision = static_cast<flop_precision>(i);
    if (auto per_clock = flops_per_clock_per_sm(major, minor, precision)) {
      peaks.flops_per_s[precision] = *per_clock * gpu.multiprocessors * gpu.sm_clock_mhz * 1e6;
    }
  }
  peaks.bytes_per_s = dram_bytes_per_s(gpu);
  peaks.source = fmt::format("table sm_{}{}: {} SMs × {:g} MHz × FLOP/clk/SM", major, minor,
                             gpu.multiprocessors, gpu.sm_clock_mhz);
  if (peaks.bytes_per_s) {
    peaks.source += fmt::format("; DRAM 2 × {:g} MHz × {} bit", gpu.memory_clock_mhz,
                                gpu.memory_bus_width_bits);
  }
  return peaks;
}

std::string no_table_peaks_reason(const peak_inputs& gpu) {
  const int major = gpu.compute_capability_major;
  const int minor = gpu.compute_capability_minor;
  if (row_of(major, minor) == nullptr) {
    std::string rows;
    for (const auto& row : table) {
      rows += fmt::format("{}sm_{}{}", rows.empty() ? "" : ", ", row.major, row.minor);
    }
    return fmt::format("kerntime's peak table has no row for sm_{}{} (it has {}); give this GPU's "
                       "peaks with `kerntime run --peaks FILE` (docs/speed-of-light.md)",
                       major, minor, rows);
  }
  if (gpu.multiprocessors <= 0 || !(gpu.sm_clock_mhz > 0)) {
    return fmt::format("the SM count or the maximum SM clock of this sm_{}{} GPU is unknown, so "
                       "the table's peaks cannot be computed; give them with `kerntime run "
                       "--peaks FILE` (docs/speed-of-light.md)",
                       major, minor);
  }
  return {};
}

} // namespace kerntime::detail
