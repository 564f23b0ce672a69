#include "compare/ratio_interval.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>

namespace kerntime::detail {
namespace {

struct log_sample {
  double mean = 0;
  double variance = 0; // sample variance (n - 1)
  double count = 0;
};

std::optional<log_sample> of_logs(std::span<const double> values) {
  if (values.size() < 2) {
    return std::nullopt;
  }
  log_sample s;
  s.count = static_cast<double>(values.size());
  for (const double v : values) {
    if (!(v > 0)) {
      return std::nullopt;
    }
    s.mean += std::log(v) / s.count;
  }
  for (const double v : values) {
    s.variance += (std::log(v) - s.mean) * (std::log(v) - s.mean) / (s.count - 1);
  }
  return s;
}

} // namespace

std::optional<ratio_interval> welch_log_ratio_interval(std::span<const double> base,
                                                       std::span<const double> changed,
                                                       double alpha) {
  const auto b = of_logs(base);
  const auto c = of_logs(changed);
  if (!b || !c) {
    return std::nullopt;
  }
  const double vb = b->variance / b->count;
  const double vc = c->variance / c->count;
  const double se = std::sqrt(vb + vc);
  const double difference = c->mean - b->mean;
  ratio_interval r;
  if (se == 0) { // identical units: no spread to widen the estimate
    r.low = r.high = std::exp(difference);
    r.degrees_of_freedom = b->count + c->count - 2;
    return r;
  }
  // Welch–Satterthwaite degrees of freedom.
  r.degrees_of_freedom =
      (vb + vc) * (vb + vc) / (vb * vb / (b->count - 1) + vc * vc / (c->count - 1));
  const boost::math::students_t t(r.degrees_of_freedom);
  r.log_half_width = boost::math::quantile(boost::math::complement(t, alpha / 2)) * se;
  r.low = std::exp(difference - r.log_half_width);
  r.high = std::exp(difference + r.log_half_width);
  return r;
}

std::optional<ratio_interval> prediction_log_ratio_interval(std::span<const double> base,
                                                            double changed, double alpha) {
  const auto b = of_logs(base);
  if (!b || !(changed > 0)) {
    return std::nullopt;
  }
  const double difference = std::log(changed) - b->mean;
  ratio_interval r;
  r.degrees_of_freedom = b->count - 1;
  const double se = std::sqrt(b->variance * (1 + 1 / b->count));
  if (se > 0) {
    const boost::math::students_t t(r.degrees_of_freedom);
    r.log_half_width = boost::math::quantile(boost::math::complement(t, alpha / 2)) * se;
  }
  r.low = std::exp(difference - r.log_half_width);
  r.high = std::exp(difference + r.log_half_width);
  return r;
}

std::optional<int> base_runs_for_half_width(double now, double wanted, int base_runs,
                                            double alpha) {
  const auto half_width = [alpha](double spread, int n) {
    const boost::math::students_t t(n - 1);
    return boost::math::quantile(boost::math::complement(t, alpha / 2)) * spread *
           std::sqrt(1 + 1.0 / n);
  };
  if (base_runs < 2 || !(wanted > 0)) {
    return std::nullopt;
  }
  const double spread = now / half_width(1, base_runs);
  constexpr int most_runs = 1000; // beyond, the interval is the normal one within 0.1 %
  for (int n = base_runs; n <= most_runs; ++n) {
    if (half_width(spread, n) <= wanted) {
      return n;
    }
  }
  return std::nullopt;
}

int units_for_half_width(double now, double wanted, int units) {
  if (!(wanted > 0) || now <= wanted) {
    return units;
  }
  // In double, capped: a wanted width near zero would overflow an int (the caller says "more
  // units would hardly settle it" above a few hundred anyway).
  constexpr double most_units = 1e6;
  return static_cast<int>(std::min(most_units, std::ceil(units * (now / wanted) * (now / wanted))));
}

} // namespace kerntime::detail
