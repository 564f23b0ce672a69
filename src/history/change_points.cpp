#include "history/change_points.hpp"

#include <fmt/format.h>

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace kerntime::detail {
namespace {

struct moments {
  double mean = 0;
  double variance = 0; // sample variance
  std::size_t count = 0;
};

moments moments_of(std::span<const double> x) {
  moments m;
  m.count = x.size();
  m.mean = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
  double squares = 0;
  for (const double v : x) {
    squares += (v - m.mean) * (v - m.mean);
  }
  m.variance = x.size() > 1 ? squares / static_cast<double>(x.size() - 1) : 0.0;
  return m;
}

struct t_test {
  double p = 1;          // two-sided
  double difference = 0; // after - before
  double half_width = 0; // of its 95 % interval
};

// Student's two-sample t-test with the variance pooled over both sides: a side of three runs
// borrows the spread of the other (Welch's test believed three runs that happened to agree, and
// called a 0.5 % wiggle beside a real step certain).
t_test student(const moments& a, const moments& b) {
  t_test w;
  w.difference = b.mean - a.mean;
  const double df = static_cast<double>(a.count + b.count - 2);
  const double pooled = (a.variance * static_cast<double>(a.count - 1) +
                         b.variance * static_cast<double>(b.count - 1)) /
                        df;
  const double se =
      std::sqrt(pooled * (1.0 / static_cast<double>(a.count) + 1.0 / static_cast<double>(b.count)));
  if (se == 0) { // both sides constant: a difference is certain, none is none
    w.p = w.difference == 0 ? 1.0 : 0.0;
    return w;
  }
  const boost::math::students_t t(df);
  w.p = 2 * boost::math::cdf(boost::math::complement(t, std::abs(w.difference) / se));
  w.half_width = boost::math::quantile(boost::math::complement(t, 0.025)) * se;
  return w;
}

// Within-segment sums of |x_i - x_j| over every pair of the first k points, for each k.
std::vector<double> prefix_pair_sums(std::span<const double> x) {
  std::vector<double> sums(x.size() + 1, 0.0);
  for (std::size_t k = 1; k < x.size(); ++k) {
    double added = 0;
    for (std::size_t i = 0; i < k; ++i) {
      added += std::abs(x[i] - x[k]);
    }
    sums[k + 1] = sums[k] + added;
  }
  return sums;
}

struct split {
  std::size_t index = 0; // within the segment
  double p = 1;
};

// The best split of `x` and its p-value times `candidates`: every split the whole series allows,
// whichever segment is searched (the segments of one level partition the series, so the
// family of splits tried at each level is at most the whole series' candidates).
split best_split(std::span<const double> x, std::size_t min_segment, double candidates) {
  const auto divergence = energy_divergence(x, min_segment);
  const auto best = std::max_element(divergence.begin(), divergence.end());
  split s;
  if (best == divergence.end() || *best <= 0) {
    return s;
  }
  s.index = static_cast<std::size_t>(best - divergence.begin());
  s.p = std::min(1.0, student(moments_of(x.first(s.index)), moments_of(x.subspan(s.index))).p *
                          candidates);
  return s;
}

} // namespace

std::vector<double> energy_divergence(std::span<const double> x, std::size_t min_segment) {
  const std::size_t n = x.size();
  std::vector<double> q(n, 0.0);
  if (min_segment < 2 || n < 2 * min_segment) {
    return q;
  }
  const auto left = prefix_pair_sums(x); // left[k]: pairs within x[0, k)
  std::vector<double> reversed(x.rbegin(), x.rend());
  const auto right = prefix_pair_sums(reversed); // right[k]: pairs within the last k points
  const double all = left[n];
  for (std::size_t tau = min_segment; tau + min_segment <= n; ++tau) {
    const double a = static_cast<double>(tau);
    const double b = static_cast<double>(n - tau);
    const double within_left = left[tau];
    const double within_right = right[n - tau];
    const double across = all - within_left - within_right;
    const double e =
        2 * across / (a * b) - within_left / (a * (a - 1) / 2) - within_right / (b * (b - 1) / 2);
    q[tau] = a * b / (a + b) * e;
  }
  return q;
}

std::vector<change_point> find_change_points(std::span<const double> series,
                                             const change_options& options) {
  std::vector<std::size_t> found;
  if (series.size() < 2 * options.min_segment) {
    return {};
  }
  const double candidates = static_cast<double>(series.size() - 2 * options.min_segment + 1);
  std::vector<std::pair<std::size_t, std::size_t>> pending{{0, series.size()}};
  while (!pending.empty()) {
    const auto [begin, end] = pending.back();
    pending.pop_back();
    if (end - begin < 2 * options.min_segment) {
      continue;
    }
    const split s = best_split(series.subspan(begin, end - begin), options.min_segment, candidates);
    if (s.index == 0 || s.p >= options.alpha) {
      continue;
    }
    found.push_back(begin + s.index);
    pending.emplace_back(begin, begin + s.index);
    pending.emplace_back(begin + s.index, end);
  }
  std::sort(found.begin(), found.end());
  std::vector<change_point> changes;
  for (std::size_t i = 0; i < found.size(); ++i) {
    const std::size_t from = i == 0 ? 0 : found[i - 1];
    const std::size_t to = i + 1 == found.size() ? series.size() : found[i + 1];
    const auto before = moments_of(series.subspan(from, found[i] - from));
    const auto after = moments_of(series.subspan(found[i], to - found[i]));
    const t_test w = student(before, after);
    change_point c;
    c.index = found[i];
    c.before = before.mean;
    c.after = after.mean;
    c.ratio = after.mean / before.mean;
    c.ratio_low = (after.mean - w.half_width) / before.mean;
    c.ratio_high = (after.mean + w.half_width) / before.mean;
    c.p_value = w.p;
    if (std::abs(c.ratio - 1) >= options.min_change) {
      changes.push_back(c);
    }
  }
  return changes;
}

std::string change_text(const change_point& c) {
  return fmt::format("{:+.2f} % [{:+.2f}, {:+.2f}]", 100 * (c.ratio - 1), 100 * (c.ratio_low - 1),
                     100 * (c.ratio_high - 1));
}

} // namespace kerntime::detail
