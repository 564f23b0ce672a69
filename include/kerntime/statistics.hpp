#pragma once
// Robust summary statistics, as defined in docs/statistics.md. Pure functions.

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace kerntime {

struct summary_statistics {
  std::size_t count = 0;
  double median = 0;
  double mean = 0;
  double stdev = 0; // sample standard deviation (n - 1); 0 for a single value
  double min = 0;
  double max = 0;
  double p10 = 0; // linear interpolation between closest ranks
  double p90 = 0;
  double cv = 0; // stdev / mean; 0 when the mean is 0
};

struct trial_statistics {
  std::vector<double> means;
  std::vector<double> medians;
  double mean_of_means = 0; // what Google Benchmark's mean and median aggregates report
  double median_of_means = 0;
  double stdev_of_means = 0; // sample stdev of the trial means (0 with one trial)
  double cv_of_means = 0;    // stdev_of_means / mean of the trial means
};

// An interval [low, high] that holds the population's median with probability `confidence`.
struct confidence_interval {
  double low = 0;
  double high = 0;
  double confidence = 0; // the coverage actually reached (at least the one asked)
};

// Throws kerntime::invalid_argument on an empty input.
[[nodiscard]] summary_statistics summarise_values(std::span<const double> values);
[[nodiscard]] double percentile(std::span<const double> sorted_values, double fraction);
// The median of unsorted values (percentile 0.5). Throws kerntime::invalid_argument when empty.
[[nodiscard]] double median(std::vector<double> values);
// The distribution-free interval of the median from order statistics: the narrowest pair
// x(k), x(n+1-k) whose binomial coverage is at least `confidence` (docs/statistics.md).
// nullopt when there are too few values to reach it (fewer than 6 for 95 %).
[[nodiscard]] std::optional<confidence_interval> median_interval(std::vector<double> values,
                                                                 double confidence = 0.95);
// The interval's farther end from `centre`, as a fraction of `centre` (0.004 is ±0.4 %).
[[nodiscard]] double relative_half_width(const confidence_interval& interval, double centre);
// The mean of the values within max(2 steps of the timer, 4 scaled MADs) of their median
// (docs/statistics.md): robust to a stray iteration as the median is, yet finer than the timer's
// step, because a kernel starts anywhere between two ticks and so reads a step long or short at
// random (the median of such readings stays on the ticks). Throws kerntime::invalid_argument
// when empty or the step is negative.
[[nodiscard]] double clipped_mean(const std::vector<double>& values, double timer_step_ns);
[[nodiscard]] trial_statistics summarise_trials(const std::vector<std::vector<double>>& trials);

} // namespace kerntime
