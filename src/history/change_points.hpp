#pragma once
// Level shifts in a series of measurements (a state's median, run after run): E-divisive means
// (Matteson and James, 2014) locates the split that best separates the series into two
// distributions, Student's t-test (pooled variance) on the two sides says whether the split is
// real, and binary segmentation repeats both inside each side. docs/history.md says why this method
// and what its error rates are, measured.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace kerntime::detail {

struct change_options {
  double alpha = 0.01;         // false changes per series, at most (Bonferroni over the splits)
  std::size_t min_segment = 3; // the fewest points on either side of a change
  double min_change = 0.005;   // a shift smaller than this fraction of the level is not reported
};

struct change_point {
  std::size_t index = 0; // the first point of the new level
  double before = 0;     // the mean of the segment before it (from the previous change)
  double after = 0;      // the mean of the segment after it (to the next change)
  double ratio = 1;      // after / before
  double ratio_low = 1;  // the 95 % t interval of after - before, as a ratio to before
  double ratio_high = 1;
  double p_value = 1; // the t-test's two-sided p of the two segments (uncorrected)
};

// "+2.03 % [+2.00, +2.06]": the change and its interval, as `history changes` and the trends page
// write it.
[[nodiscard]] std::string change_text(const change_point& c);

// The energy statistic of splitting `x` before each index in [min_segment, n - min_segment]
// (α = 1); index i of the result is the split before x[i] (0 where no split is allowed).
[[nodiscard]] std::vector<double> energy_divergence(std::span<const double> x,
                                                    std::size_t min_segment);

// The change points of `series`, in order. Needs no more than O(n²) per segment searched.
[[nodiscard]] std::vector<change_point> find_change_points(std::span<const double> series,
                                                           const change_options& options = {});

} // namespace kerntime::detail
