#pragma once
// Robust summary statistics, as defined in docs/statistics.md. Pure functions.

#include <cstddef>
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

// Throws kerntime::invalid_argument on an empty input.
[[nodiscard]] summary_statistics summarize(std::span<const double> values);
[[nodiscard]] double percentile(std::span<const double> sorted_values, double fraction);
// The median of unsorted values (percentile 0.5). Throws kerntime::invalid_argument when empty.
[[nodiscard]] double median(std::vector<double> values);
[[nodiscard]] trial_statistics summarize_trials(const std::vector<std::vector<double>>& trials);

} // namespace kerntime
