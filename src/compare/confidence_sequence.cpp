// The arithmetic of the A/B decision: which side runs a trial, one block's paired log-ratio, and
// Lai's t-mixture confidence sequence over those log-ratios. Lai's sequence is exact for normal
// observations of unknown variance at every block count, so an interval from 3 blocks is as
// honest as one from 40; why it and not a plug-in variance is measured in docs/ab.md.

#include "compare/confidence_sequence.hpp"

#include "kerntime/errors.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace kerntime::detail {
namespace {

// The precision c of the mixture over the standardized effect d = mean / sigma, d ~ N(0, 1/c).
// It weights effects of about 1/sqrt(c) ~ 3 noise sigmas, what a 1 % band is against 0.3 % noise
// per block. c = 0.1 bounds the mean from the third block on; from 0.05 to 0.2 the widths from
// block 4 to 50 differ by under 6 %, and a larger c bounds nothing before block 4 or 5
// (docs/ab.md).
constexpr double mixture_precision = 0.1;

void check_alpha(double alpha) {
  if (!(alpha > 0 && alpha < 1)) {
    throw invalid_argument("alpha must lie in (0, 1), got " + std::to_string(alpha));
  }
}

} // namespace

ab_side side_of_trial(trial_order order, std::size_t k) {
  switch (order) {
  case trial_order::balanced: // A B B A: trials 0 and 3 of every block are A
    return (k % 4 == 0 || k % 4 == 3) ? ab_side::a : ab_side::b;
  case trial_order::alternating:
    return k % 2 == 0 ? ab_side::a : ab_side::b;
  }
  throw invalid_argument("unknown trial order");
}

ab_side first_in_round(std::size_t round) {
  return round % 2 == 0 ? ab_side::a : ab_side::b;
}

ab_side side_in_round(std::size_t round, std::size_t k) {
  const ab_side side = side_of_trial(trial_order::balanced, k);
  return first_in_round(round) == ab_side::a ? side : other_side(side);
}

double block_log_ratio(trial_order order, const std::array<double, trials_per_block>& medians) {
  double log_ratio = 0;
  for (std::size_t k = 0; k < trials_per_block; ++k) {
    const double m = medians[k];
    if (!(m > 0 && std::isfinite(m))) {
      throw invalid_argument("a trial median must be a positive time, got " + std::to_string(m));
    }
    log_ratio += (side_of_trial(order, k) == ab_side::b ? 0.5 : -0.5) * std::log(m);
  }
  return log_ratio;
}

std::vector<double> process_pair_log_ratios(const std::vector<double>& block_log_ratios,
                                            const std::vector<std::size_t>& blocks_per_pair) {
  std::vector<double> means;
  std::size_t first = 0;
  for (const std::size_t blocks : blocks_per_pair) {
    if (blocks == 0) {
      throw invalid_argument("a process pair that ran no block gives no observation");
    }
    if (first + blocks > block_log_ratios.size()) {
      break;
    }
    double sum = 0;
    for (std::size_t k = first; k < first + blocks; ++k) {
      sum += block_log_ratios[k];
    }
    means.push_back(sum / static_cast<double>(blocks));
    first += blocks;
  }
  return means;
}

ab_decision decide(const ab_interval& interval, double band) {
  if (!(band >= 0 && std::isfinite(band))) {
    throw invalid_argument("the band must be a finite fraction >= 0, got " + std::to_string(band));
  }
  const double upper = 1 + band;
  const double lower = 1 / upper;
  if (interval.low > upper) {
    return ab_decision::slower;
  }
  if (interval.high < lower) {
    return ab_decision::faster;
  }
  if (interval.low >= lower && interval.high <= upper) {
    return ab_decision::same;
  }
  return ab_decision::undecided;
}

ab_decision conclude(const ab_interval& interval, double band) {
  const ab_decision d = decide(interval, band);
  return d == ab_decision::undecided ? ab_decision::inconclusive : d;
}

ab_decision decide(const ab_interval& interval, double band, double same_band) {
  const ab_decision d = decide(interval, band);
  if (d != ab_decision::undecided || same_band <= band) {
    return d;
  }
  return decide(interval, same_band) == ab_decision::same ? ab_decision::same
                                                          : ab_decision::undecided;
}

ab_decision conclude(const ab_interval& interval, double band, double same_band) {
  const ab_decision d = decide(interval, band, same_band);
  return d == ab_decision::undecided ? ab_decision::inconclusive : d;
}

double t_mixture_log_half_width(std::size_t count, double sum_squared_deviations, double alpha) {
  check_alpha(alpha);
  if (!(sum_squared_deviations >= 0)) {
    throw invalid_argument("a sum of squared deviations cannot be negative");
  }
  constexpr double unbounded = std::numeric_limits<double>::infinity();
  if (count < 2) {
    return unbounded;
  }
  // Lai (1976): with S = sum(x - mu) and V = sum((x - mu)^2) over t observations, the mixture
  // M_t = sqrt(c / (t + c)) * (1 - S^2 / ((t + c) V))^(-t/2) is a nonnegative martingale with
  // M_1 = 1 for every scale, so by Ville's inequality it stays below 1 / alpha at all t with
  // probability >= 1 - alpha. Solved for mu: |mean - mu| < s sqrt(k / (t - k)), where
  // s^2 = sum_squared_deviations / t, k = (t + c)(1 - q), q = (alpha sqrt(c / (t + c)))^(2/t).
  const double t = static_cast<double>(count);
  const double c = mixture_precision;
  const double log_q = 2 / t * (std::log(alpha) + 0.5 * std::log(c / (t + c)));
  const double k = (t + c) * -std::expm1(log_q);
  if (k >= t) {
    return unbounded;
  }
  return std::sqrt(sum_squared_deviations / t * k / (t - k));
}

sequential_ratio::sequential_ratio(double alpha, double timer_step_fraction)
    : alpha_(alpha), timer_step_fraction_(timer_step_fraction) {
  check_alpha(alpha);
  if (!(timer_step_fraction >= 0 && std::isfinite(timer_step_fraction))) {
    throw invalid_argument("the timer step must be a finite fraction >= 0, got " +
                           std::to_string(timer_step_fraction));
  }
}

void sequential_ratio::add_block(double log_ratio) {
  if (!std::isfinite(log_ratio)) {
    throw invalid_argument("a block's log-ratio must be finite");
  }
  ++count_;
  const double delta = log_ratio - mean_;
  mean_ += delta / static_cast<double>(count_);
  sum_squared_deviations_ += delta * (log_ratio - mean_);
}

ab_interval sequential_ratio::interval() const {
  // The timer cannot resolve a ratio finer than its step, however alike the blocks are.
  const double half = std::max(t_mixture_log_half_width(count_, sum_squared_deviations_, alpha_),
                               std::log1p(timer_step_fraction_));
  return {.ratio = std::exp(mean_),
          .low = std::exp(mean_ - half),
          .high = std::exp(mean_ + half),
          .blocks = count_};
}

std::optional<std::size_t> sequential_ratio::observations_to_decide(double band,
                                                                    std::size_t limit) const {
  return observations_to_decide(band, limit, variance());
}

std::optional<std::size_t> sequential_ratio::observations_to_decide(double band, std::size_t limit,
                                                                    double later_variance) const {
  if (!(band >= 0 && std::isfinite(band))) {
    return std::nullopt;
  }
  // Room between the mean and the band's edge.
  return observations_within(std::abs(std::abs(mean_) - std::log1p(band)), limit, later_variance);
}

std::optional<std::size_t> sequential_ratio::observations_to_settle(double same_band,
                                                                    double change_band,
                                                                    std::size_t limit,
                                                                    double later_variance) const {
  if (!(same_band > 0 && std::isfinite(same_band)) ||
      !(change_band > 0 && std::isfinite(change_band))) {
    return std::nullopt;
  }
  return observations_within(best_room(same_band, change_band), limit, later_variance);
}

std::optional<std::size_t> sequential_ratio::observations_within(double room, std::size_t limit,
                                                                 double later_variance) const {
  // The timer's floor takes its part of the room.
  if (count_ < 3 || !(later_variance >= 0 && std::isfinite(later_variance)) ||
      room <= std::log1p(timer_step_fraction_)) {
    return std::nullopt;
  }
  for (std::size_t t = count_; t <= limit; ++t) {
    if (t_mixture_log_half_width(t, squares_at(t, later_variance), alpha_) < room) {
      return t;
    }
  }
  return std::nullopt;
}

double sequential_ratio::best_room(double same_band, double change_band) const {
  return std::max(std::log1p(same_band), std::abs(mean_) - std::log1p(change_band));
}

double sequential_ratio::squares_at(std::size_t count, double later_variance) const {
  return sum_squared_deviations_ +
         (later_variance * static_cast<double>(count > count_ ? count - count_ : 0));
}

bool sequential_ratio::no_verdict_reachable(double band) const {
  if (count_ < min_observations_to_stop_early || !(band >= 0 && std::isfinite(band)) ||
      timer_step_fraction_ < band) {
    return false;
  }
  const double half = t_mixture_log_half_width(count_, sum_squared_deviations_, alpha_);
  return std::abs(mean_) + half <= std::log1p(band);
}

bool sequential_ratio::out_of_reach(double band, std::size_t limit) const {
  return out_of_reach(band, limit, band);
}

bool sequential_ratio::out_of_reach(double same_band, std::size_t limit, double change_band,
                                    std::optional<double> later_variance) const {
  if (count_ < min_observations_to_give_up || limit <= count_ ||
      !(same_band > 0 && std::isfinite(same_band)) ||
      !(change_band > 0 && std::isfinite(change_band))) {
    return false;
  }
  const double later = later_variance && *later_variance >= 0 ? *later_variance : variance();
  return t_mixture_log_half_width(limit, squares_at(limit, later), alpha_) >=
         best_room(same_band, change_band);
}

std::optional<double> sequential_ratio::reachable_band(double band, std::size_t limit,
                                                       double widest, double step,
                                                       std::optional<double> later) const {
  // Within a third of the observations left before the limit: room for the mean to wander
  // (confidence_sequence_test's A/A states of 4 % SD, 50 rounds: with half, about 1500 of 2000
  // settled by the limit, at a median band of ±3 %; with a third, about 1800, at ±3.5 %).
  const std::size_t within = count_ + ((limit > count_ ? limit - count_ : 0) / 3);
  if (count_ < min_observations_to_give_up || !(band > 0 && std::isfinite(band)) ||
      !(step > 0 && std::isfinite(step)) || within <= count_ ||
      !out_of_reach(band, within, band, later)) {
    return std::nullopt;
  }
  // Whole steps from the threshold: a band of 2.5 % reads as such, not as 2.4999999 %.
  const double tolerance = 1e-9 * widest;
  for (int k = 1; band + (k * step) <= widest + tolerance; ++k) {
    const double candidate = band + (k * step);
    if (!out_of_reach(candidate, within, candidate, later)) {
      return candidate;
    }
  }
  // None within a third of those left: the widest, where it could settle by the limit.
  if (widest > band + tolerance && !out_of_reach(widest, limit, widest, later)) {
    return widest;
  }
  return std::nullopt;
}

spread_floor_look look_at_spread(const sequential_ratio& s, double threshold, double same_band,
                                 std::size_t widen_within, double widest_band,
                                 std::size_t give_up_beyond, std::optional<double> later_variance) {
  spread_floor_look look;
  // Given up only where not even the widest band could settle `same` within twice the
  // observations allowed, and no change beyond the threshold could show.
  look.give_up = give_up_beyond > 0 && s.out_of_reach(std::max(widest_band, same_band),
                                                      give_up_beyond, threshold, later_variance);
  // Widened already where `same` is out of reach within the observations allowed, where giving
  // up waits for twice them: a wider band loses precision, not a verdict.
  if (widest_band > same_band && widen_within > 0 &&
      s.out_of_reach(same_band, widen_within, threshold, later_variance)) {
    look.same_band =
        s.reachable_band(same_band, widen_within, widest_band, threshold / 2, later_variance);
  }
  return look;
}

} // namespace kerntime::detail
