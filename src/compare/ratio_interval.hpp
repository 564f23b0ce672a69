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

// One new run against several base runs (a baseline from history): the base runs' spread is the
// between-run spread the new run has too, so the interval of NEW/BASE is a t prediction interval
// on the logarithms, ± t(n-1) · s · sqrt(1 + 1/n). nullopt with fewer than 2 base runs or a value
// <= 0.
[[nodiscard]] std::optional<ratio_interval>
prediction_log_ratio_interval(std::span<const double> base, double changed, double alpha);

// Base runs that would make a prediction interval's half width (log scale) `wanted`, from one
// that is `now` with `base_runs`; nullopt when no number of base runs can: the new run's own
// between-run spread alone is wider.
[[nodiscard]] std::optional<int> base_runs_for_half_width(double now, double wanted, int base_runs,
                                                          double alpha);

// Units per side that would make the interval's half width (log scale) `wanted`, from one that
// is `now` with `units` per side: the width shrinks with the square root of the units. At most
// a million.
[[nodiscard]] int units_for_half_width(double now, double wanted, int units);

} // namespace kerntime::detail
