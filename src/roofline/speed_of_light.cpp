#include "roofline/speed_of_light.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kerntime::detail {
namespace {

std::optional<double> peak_of(const device_peaks& peaks, std::optional<flop_precision> precision) {
  if (!precision) {
    return std::nullopt;
  }
  const auto found = peaks.flops_per_s.find(*precision);
  return found == peaks.flops_per_s.end() ? std::nullopt : std::optional<double>(found->second);
}

// 100 × (work / latency) / rate, or empty when a part is missing.
std::optional<double> percent_of(std::optional<double> work, double latency_ns,
                                 std::optional<double> rate) {
  if (!work || !rate || !(*rate > 0) || !(latency_ns > 0)) {
    return std::nullopt;
  }
  return 100.0 * (*work / (latency_ns * 1e-9)) / *rate;
}

// Seconds the work needs at `rate`, or empty.
std::optional<double> seconds_at(std::optional<double> work, std::optional<double> rate) {
  if (!work || !rate || !(*rate > 0)) {
    return std::nullopt;
  }
  return *work / *rate;
}

// The peak tables multiply the device's own clocks and widths; a state timed this much below its
// roofline is not explained by a clock read a little low or the timer's step on a short state.
constexpr double roofline_tolerance = 0.05;

// What the figures cannot mean as they stand (speed_of_light::notes). Memory above the DRAM peak
// is explained when the bytes (read + written) fit in L2 twice over: the data can stay there
// between iterations. Otherwise a time below the roofline is not explained by the GPU.
void add_plausibility_notes(speed_of_light& sol, const declared_work& work) {
  const bool fits_in_l2 =
      work.bytes && work.l2_bytes > 0 && *work.bytes <= 2.0 * static_cast<double>(work.l2_bytes);
  const bool from_l2 = sol.memory_pct && *sol.memory_pct > 100 && fits_in_l2;
  if (from_l2) {
    sol.notes.push_back(fmt::format(
        "memory {:.1f}% is above the DRAM peak: the data fits in L2, so part of the declared "
        "bytes came from L2, not from DRAM",
        *sol.memory_pct));
  }
  const bool memory_roofline = sol.bound == roofline_bound::memory;
  const double latency_ns = work.latency_ns;
  if (!(from_l2 && memory_roofline) && sol.roofline_ns > 0 &&
      latency_ns < sol.roofline_ns * (1 - roofline_tolerance)) {
    sol.notes.push_back(fmt::format(
        "the time is {:.0f}% below the roofline: faster than the GPU's peaks allow for the "
        "declared work, so the declared work is wrong or the work did not all run",
        100 * (1 - latency_ns / sol.roofline_ns)));
  }
}

} // namespace

std::optional<speed_of_light> compute_speed_of_light(const declared_work& work,
                                                     const device_peaks& peaks,
                                                     const calibration* achievable,
                                                     const std::string& achievable_source) {
  const std::optional<double> peak_flops = peak_of(peaks, work.precision);
  const std::optional<double> compute_s = seconds_at(work.flops, peak_flops);
  const std::optional<double> memory_s = seconds_at(work.bytes, peaks.bytes_per_s);
  if (!compute_s && !memory_s) {
    return std::nullopt;
  }
  speed_of_light sol;
  sol.precision = work.precision;
  sol.peak_flops_per_s = peak_flops;
  sol.peak_bytes_per_s = peaks.bytes_per_s;
  sol.compute_pct = percent_of(work.flops, work.latency_ns, peak_flops);
  sol.memory_pct = percent_of(work.bytes, work.latency_ns, peaks.bytes_per_s);
  sol.bound = compute_s.value_or(0) >= memory_s.value_or(0) ? roofline_bound::compute
                                                            : roofline_bound::memory;
  sol.roofline_ns = std::max(compute_s.value_or(0), memory_s.value_or(0)) * 1e9;
  sol.peak_source = peaks.source;
  if (achievable) {
    achievable_speed_of_light a;
    a.flops_per_s = peak_of({achievable->gemm_flops_per_s, {}, {}}, work.precision);
    a.bytes_per_s = achievable->copy_bytes_per_s;
    a.compute_pct = percent_of(work.flops, work.latency_ns, a.flops_per_s);
    a.memory_pct = percent_of(work.bytes, work.latency_ns, a.bytes_per_s);
    a.source = achievable_source;
    sol.achievable = std::move(a);
  }
  add_plausibility_notes(sol, work);
  return sol;
}

void add_counter_fractions(counters_summary& counters, const device_peaks& peaks) {
  if (counters.status != counters_status::measured || !peaks.bytes_per_s ||
      !(*peaks.bytes_per_s > 0)) {
    return;
  }
  const auto fraction = [&](counters_derived& d) {
    if (d.dram_bytes_per_second) {
      d.dram_fraction_of_peak = *d.dram_bytes_per_second / *peaks.bytes_per_s;
    }
  };
  fraction(counters.derived);
  for (auto& kernel : counters.kernels) {
    fraction(kernel.derived);
  }
}

} // namespace kerntime::detail
