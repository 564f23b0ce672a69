#include "report/detail/roofline_text.hpp"

#include <fmt/format.h>

namespace kerntime::detail {

std::optional<double> bound_share(roofline_bound bound, std::optional<double> compute_pct,
                                  std::optional<double> memory_pct) {
  return bound == roofline_bound::compute ? compute_pct : memory_pct;
}

std::string bound_share_text(roofline_bound bound, std::optional<double> compute_pct,
                             std::optional<double> memory_pct) {
  const auto pct = bound_share(bound, compute_pct, memory_pct);
  return pct ? fmt::format("{:.1f}% {}", *pct, to_string(bound)) : std::string();
}

std::string energy_text(double joules) {
  return joules >= 1.0 ? fmt::format("{:.3f} J", joules) : fmt::format("{:.3f} mJ", joules * 1e3);
}

std::string energy_window_text(const energy_summary& e) {
  if (!e.window_s) {
    return " (NVML's energy counter over the trials, the L2 flushes included)";
  }
  return fmt::format(" (NVML's energy counter over {:.3f} s of trials, the L2 flushes and the gaps "
                     "between trials included)",
                     *e.window_s);
}

} // namespace kerntime::detail
