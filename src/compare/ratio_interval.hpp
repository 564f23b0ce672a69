#pragma once
// The interval of a ratio NEW/BASE from independent units per side (trial or run medians): a
// Welch t interval on the logarithms, so the ratio's interval is multiplicative and needs no
// equal variances. Pure, so tests check its coverage by simulation.

#include <optional>
#include <span>

namespace kerntime::detail {

struct ratio_interval {
  double low = 1;
  double high = 1;
  double log_half_width = 0; // half the interval's width on the log scale
  double degrees_of_freedom = 0;
};

// nullopt when either side has fewer than 2 units (no spread can be estimated) or a value <= 0.
[[nodiscard]] std::optional<ratio_interval>
welch_log_ratio_interval(std::span<const double> base, std::span<const double> changed,
                         double alpha);

// Units per side that would make the interval's half width (log scale) `wanted`, from one that
// is `now` with `units` per side: the width shrinks with the square root of the units. At most
// a million.
[[nodiscard]] int units_for_half_width(double now, double wanted, int units);

} // namespace kerntime::detail
