#include "compare/reference_adjustment.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "kerntime/errors.hpp"
#include "kerntime/statistics.hpp"

namespace kerntime::detail {
namespace {

// The sample SD (kerntime::summarise_values'); 0 with fewer than 2 values.
double sd_of(const std::vector<double>& values) {
  return values.size() < 2 ? 0 : summarise_values(values).stdev;
}

// Whether any round had the reference.
bool has_reference(std::span<const std::optional<double>> reference) {
  return std::any_of(reference.begin(), reference.end(),
                     [](const std::optional<double>& x) { return x.has_value(); });
}

} // namespace

std::optional<double> reference_beta(std::span<const double> state,
                                     std::span<const std::optional<double>> reference) {
  double sx = 0;
  double sy = 0;
  std::size_t n = 0;
  for (std::size_t r = 0; r < state.size() && r < reference.size(); ++r) {
    if (reference[r]) {
      sx += *reference[r];
      sy += state[r];
      ++n;
    }
  }
  if (n < reference_min_rounds) {
    return std::nullopt;
  }
  const double mx = sx / static_cast<double>(n);
  const double my = sy / static_cast<double>(n);
  double sxx = 0;
  double sxy = 0;
  double syy = 0;
  for (std::size_t r = 0; r < state.size() && r < reference.size(); ++r) {
    if (reference[r]) {
      sxx += (*reference[r] - mx) * (*reference[r] - mx);
      sxy += (*reference[r] - mx) * (state[r] - my);
      syy += (state[r] - my) * (state[r] - my);
    }
  }
  if (!(sxx > 0)) {
    return std::nullopt;
  }
  const double slope = sxy / sxx;
  // A slope its rounds do not show apart from 0 (t below reference_min_t) is taken as 0: a noisy
  // beta adds its own noise times the reference's spread to every round.
  const double residual = std::max(0.0, syy - (slope * sxy)) / static_cast<double>(n - 2);
  if (slope * std::sqrt(sxx) < reference_min_t * std::sqrt(residual)) {
    return 0.0;
  }
  return std::clamp(slope, 0.0, reference_beta_max);
}

reference_adjusted adjust_by_reference(std::span<const double> state,
                                       std::span<const std::optional<double>> reference) {
  if (!reference.empty() && reference.size() != state.size()) {
    throw invalid_argument(
        fmt::format("a reference for {} rounds cannot adjust {}", reference.size(), state.size()));
  }
  reference_adjusted out;
  out.observations.assign(state.begin(), state.end());
  out.sd_all = sd_of(out.observations);
  if (reference.empty()) {
    return out;
  }
  std::vector<double> as_measured;
  for (std::size_t r = 0; r < state.size(); ++r) {
    const auto beta = reference_beta(state.first(r), reference.first(r));
    if (beta && reference[r]) {
      out.observations[r] = state[r] - (*beta * *reference[r]);
      out.adjusted.push_back(out.observations[r]);
      as_measured.push_back(state[r]);
    }
  }
  out.beta = reference_beta(state, reference);
  out.sd_before = sd_of(as_measured);
  out.sd_after = sd_of(out.adjusted);
  return out;
}

referenced_ratio::referenced_ratio(double alpha, double timer_step_fraction,
                                   std::span<const double> rounds,
                                   std::span<const std::optional<double>> reference)
    : adjustment_(adjust_by_reference(rounds, reference)),
      measured_(has_reference(reference) ? alpha / 2 : alpha, timer_step_fraction) {
  for (const double x : rounds) {
    measured_.add_block(x);
  }
  if (has_reference(reference)) {
    adjusted_.emplace(alpha / 2, timer_step_fraction);
    for (const double x : adjustment_.adjusted) {
      adjusted_->add_block(x);
    }
  }
}

const sequential_ratio& referenced_ratio::deciding() const {
  if (!adjusted_) {
    return measured_;
  }
  const ab_interval m = measured_.interval();
  const ab_interval a = adjusted_->interval();
  return std::log(a.high / a.low) < std::log(m.high / m.low) ? *adjusted_ : measured_;
}

ab_interval referenced_ratio::interval() const {
  const ab_interval m = measured_.interval();
  if (!adjusted_ || adjusted_->blocks() < 3) {
    return m;
  }
  const ab_interval a = adjusted_->interval();
  ab_interval both{.ratio = deciding().interval().ratio,
                   .low = std::max(m.low, a.low),
                   .high = std::min(m.high, a.high),
                   .blocks = m.blocks};
  if (!(both.low <= both.high)) {
    // The two miss each other: one of them misses the ratio, which the premise (the reference's
    // B/A is 1) makes unlikely; the rounds as measured do not rest on it.
    return m;
  }
  both.ratio = std::clamp(both.ratio, both.low, both.high);
  return both;
}

} // namespace kerntime::detail
