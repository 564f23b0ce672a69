#include "kerntime/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "kerntime/errors.hpp"

namespace kerntime {

double percentile(std::span<const double> sorted_values, double fraction) {
  if (sorted_values.empty()) {
    throw invalid_argument("percentile of an empty sample");
  }
  // Linear interpolation between closest ranks (numpy's default, "type 7").
  const double rank = fraction * static_cast<double>(sorted_values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(rank));
  const std::size_t above = std::min(below + 1, sorted_values.size() - 1);
  const double weight = rank - static_cast<double>(below);
  return sorted_values[below] + weight * (sorted_values[above] - sorted_values[below]);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return percentile(values, 0.5);
}

double clipped_mean(const std::vector<double>& values, double timer_step_ns) {
  if (values.empty()) {
    throw invalid_argument("clipped mean of an empty sample");
  }
  if (!(timer_step_ns >= 0)) {
    throw invalid_argument("the timer's step must be 0 or more nanoseconds");
  }
  const double centre = median(values);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (const double v : values) {
    deviations.push_back(std::abs(v - centre));
  }
  // 1.4826 × MAD estimates the standard deviation of normal values.
  const double width = std::max(2 * timer_step_ns, 4 * 1.4826 * median(std::move(deviations)));
  double sum = 0;
  std::size_t kept = 0;
  for (const double v : values) {
    if (std::abs(v - centre) <= width) {
      sum += v;
      ++kept;
    }
  }
  return sum / static_cast<double>(kept); // the median's own neighbours are always kept
}

summary_statistics summarise_values(std::span<const double> values) {
  if (values.empty()) {
    throw invalid_argument("statistics of an empty sample: every measurement needs at least one "
                           "iteration");
  }
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  summary_statistics s;
  s.count = sorted.size();
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = percentile(sorted, 0.5);
  s.p10 = percentile(sorted, 0.1);
  s.p90 = percentile(sorted, 0.9);
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(s.count);
  if (s.count > 1) {
    double squares = 0;
    for (const double v : sorted) {
      squares += (v - s.mean) * (v - s.mean);
    }
    s.stdev = std::sqrt(squares / static_cast<double>(s.count - 1));
  }
  s.cv = s.mean != 0 ? s.stdev / s.mean : 0.0;
  return s;
}

namespace {

// P(B = i) for B ~ Binomial(n, 1/2), in log space so large n does not underflow.
double binomial_half_pmf(std::size_t n, std::size_t i) {
  const auto nd = static_cast<double>(n);
  const auto id = static_cast<double>(i);
  return std::exp(std::lgamma(nd + 1) - std::lgamma(id + 1) - std::lgamma(nd - id + 1) -
                  nd * std::log(2.0));
}

} // namespace

std::optional<confidence_interval> median_interval(std::vector<double> values, double confidence) {
  const std::size_t n = values.size();
  if (n < 2) {
    return std::nullopt;
  }
  std::sort(values.begin(), values.end());
  // [x(k), x(n+1-k)] misses the median when at most k-1 values lie below it or above it:
  // coverage = 1 - 2 P(B <= k-1). Coverage falls as k grows; take the largest k that reaches it.
  std::optional<confidence_interval> best;
  double below = 0; // P(B <= k-1)
  for (std::size_t k = 1; 2 * k <= n; ++k) {
    below += binomial_half_pmf(n, k - 1);
    const double coverage = 1.0 - 2.0 * below;
    if (coverage < confidence) {
      break;
    }
    best = confidence_interval{values[k - 1], values[n - k], coverage};
  }
  return best;
}

double relative_half_width(const confidence_interval& interval, double centre) {
  if (centre == 0) {
    return 0;
  }
  return std::max(std::abs(centre - interval.low), std::abs(interval.high - centre)) /
         std::abs(centre);
}

trial_statistics summarise_trials(const std::vector<std::vector<double>>& trials) {
  trial_statistics t;
  for (const auto& trial : trials) {
    const summary_statistics s = summarise_values(trial);
    t.means.push_back(s.mean);
    t.medians.push_back(s.median);
  }
  if (!t.means.empty()) {
    const summary_statistics of_means = summarise_values(t.means);
    t.mean_of_means = of_means.mean;
    t.median_of_means = of_means.median;
    t.stdev_of_means = of_means.stdev;
    t.cv_of_means = of_means.cv;
  }
  return t;
}

} // namespace kerntime
