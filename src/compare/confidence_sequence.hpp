#pragma once
// The statistics that decide `kerntime ab`: the balanced order of trials (A B B A, so a linear
// drift cancels inside every block), the paired log-ratio of one block, and a confidence sequence
// for the ratio B/A that stays valid when looked at after every block, so the run can stop as soon
// as it decides. Pure arithmetic, so the tests check its coverage by simulation (docs/ab.md).

#include <array>
#include <cstddef>
#include <limits>
#include <optional>
#include <vector>

namespace kerntime::detail {

enum class ab_side { a, b };

// How the trials of the two sides are interleaved. `balanced` (A B B A, repeated) is what A/B runs;
// `alternating` (A B A B) is the naive order, kept to show what the balance buys.
enum class trial_order { balanced, alternating };

// One block of four trials, two per side, gives one observation.
inline constexpr std::size_t trials_per_block = 4;

// The side that runs trial `k`, counted from 0 over the whole run.
[[nodiscard]] ab_side side_of_trial(trial_order order, std::size_t k);

// The side that runs trial `k` (counted from 0 within the round) of round `round` of `kerntime
// ab`, and the side whose worker is launched first in that round: A B B A and A first in rounds 0,
// 2, 4, ...; B A A B and B first in rounds 1, 3, .... Whatever favours the side that goes first
// (its process made its context and took its memory first, its trial opened the round) then
// favours each side in half the rounds, and a linear drift still cancels inside every block.
[[nodiscard]] ab_side side_in_round(std::size_t round, std::size_t k);
[[nodiscard]] ab_side first_in_round(std::size_t round);
[[nodiscard]] constexpr ab_side other_side(ab_side side) {
  return side == ab_side::a ? ab_side::b : ab_side::a;
}

// The observation of one block: its four trial medians in the order they ran, sides assigned by
// `order`; ((log b1 + log b2) - (log a1 + log a2)) / 2. Throws kerntime::invalid_argument when a
// median is not a positive finite number.
[[nodiscard]] double block_log_ratio(trial_order order,
                                     const std::array<double, trials_per_block>& medians);

// The observations of a run whose blocks came from several process pairs (a worker of A and a
// worker of B, `kerntime ab`): the mean log-ratio of each pair's blocks, `blocks_per_pair` saying
// how many blocks each pair ran, in order. A process pair carries an offset of its own (where its
// allocations landed), so the blocks of one pair are not independent; the means of fresh pairs are
// (docs/ab.md). A pair whose blocks have not all been given is not read. Throws
// kerntime::invalid_argument for a pair of 0 blocks.
[[nodiscard]] std::vector<double>
process_pair_log_ratios(const std::vector<double>& block_log_ratios,
                        const std::vector<std::size_t>& blocks_per_pair);

// Where B/A lies after `blocks` observations (blocks, or process pairs' means). `ratio` is
// exp(mean log-ratio); `low` is 0 and `high` +infinity while too few observations bound it.
struct ab_interval {
  double ratio = 1;
  double low = 0;
  double high = std::numeric_limits<double>::infinity();
  std::size_t blocks = 0;
};

enum class ab_decision { undecided, slower, faster, same, inconclusive };

inline constexpr double default_band = 0.01;  // ±1 %
inline constexpr double default_alpha = 0.05; // the chance the interval ever misses, all blocks

// The verdict of an interval against the band b: `slower` when the interval lies wholly above
// 1 + b, `faster` wholly below 1 / (1 + b), `same` wholly inside [1 / (1 + b), 1 + b], otherwise
// `undecided`. Throws kerntime::invalid_argument when b is negative or not finite.
[[nodiscard]] ab_decision decide(const ab_interval& interval, double band);

// The verdict when the caller stops (at its maximum of blocks or time): decide()'s, with
// `undecided` reported as `inconclusive`.
[[nodiscard]] ab_decision conclude(const ab_interval& interval, double band);

// The same with a wider band for `same` alone (the spread floor): `slower` and `faster` against
// `band`, `same` inside `band` or `same_band`, whichever is wider.
[[nodiscard]] ab_decision decide(const ab_interval& interval, double band, double same_band);
[[nodiscard]] ab_decision conclude(const ab_interval& interval, double band, double same_band);

// Half the width, on the log scale, of Lai's t-mixture confidence sequence for the mean of
// `count` observations whose squared deviations from their mean sum to `sum_squared_deviations`;
// +infinity while the observations cannot bound the mean (fewer than 3). Throws
// kerntime::invalid_argument when alpha is not in (0, 1) or the sum is negative.
[[nodiscard]] double t_mixture_log_half_width(std::size_t count, double sum_squared_deviations,
                                              double alpha);

// The fewest observations from which a state may stop for want of a reachable verdict: with two
// offsets equally likely, 8 observations all land on one side with a chance of 2^-7 (0.8 %).
inline constexpr std::size_t min_observations_to_stop_early = 8;

// The fewest observations from which a state may stop because its spread puts every verdict
// beyond the run's limit: by 10 the spread is known to within about ±25 % (a chi-square of 9
// degrees of freedom), where 3 or 4 observations could be several times too wide by chance.
inline constexpr std::size_t min_observations_to_give_up = 10;
// A run gives a state up when its spread would need more than this many times the observations
// the run allows (kerntime ab's rounds, kerntime.ab's blocks): a margin for a spread that reads
// wide by chance (docs/ab.md, "Why stop the hopeless early").
inline constexpr std::size_t give_up_margin = 2;
// A state given up so may go on at a band up to this many times the threshold instead, the
// narrowest its spread could settle (sequential_ratio::reachable_band; docs/ab.md).
inline constexpr double widest_band_factor = 5;

// The running state of one A/B comparison: add a block's log-ratio, read the interval, decide.
class sequential_ratio {
public:
  // timer_step_fraction: the timer's step as a fraction of the median, 0 when unknown; the
  // interval is never narrower than that on each side. Throws kerntime::invalid_argument when
  // alpha is not in (0, 1) or the step is negative or not finite.
  explicit sequential_ratio(double alpha = default_alpha, double timer_step_fraction = 0);

  // Throws kerntime::invalid_argument when the log-ratio is not finite.
  void add_block(double log_ratio);

  [[nodiscard]] std::size_t blocks() const noexcept { return count_; }
  [[nodiscard]] ab_interval interval() const;
  [[nodiscard]] ab_decision decision(double band = default_band) const {
    return decide(interval(), band);
  }
  // How many observations in all would decide against the band if the mean and the spread stayed
  // what they are now: the first count whose interval lies wholly inside the band (the mean
  // within it) or wholly beyond its edge. Empty with fewer than 3 observations, when the timer's
  // step or a mean on the band's edge leaves no room, or when it would take more than `limit`.
  [[nodiscard]] std::optional<std::size_t>
  observations_to_decide(double band, std::size_t limit = 100'000) const;
  // The same if each observation from here on had `later_variance` (the mean staying): what
  // observations of another spread would take, e.g. rounds of more blocks (compare/round_blocks).
  [[nodiscard]] std::optional<std::size_t> observations_to_decide(double band, std::size_t limit,
                                                                  double later_variance) const;
  // How many observations in all the spread would need at the most favourable ratio (as
  // out_of_reach reads it: `same` within `same_band` for a ratio of exactly 1, or a change beyond
  // `change_band` at the mean's distance past it, whichever is sooner), each from here on of
  // `later_variance`: what a count of blocks a round would take, read from the spread and not
  // from a mean that wanders near the band's edge early. Empty with fewer than 3 observations or
  // beyond `limit`.
  [[nodiscard]] std::optional<std::size_t> observations_to_settle(double same_band,
                                                                  double change_band,
                                                                  std::size_t limit,
                                                                  double later_variance) const;
  // The observations' variance: their squared deviations from their mean over their count (0
  // before the first).
  [[nodiscard]] double variance() const noexcept {
    return count_ == 0 ? 0 : sum_squared_deviations_ / static_cast<double>(count_);
  }
  // True when more observations can bring no verdict, unless the sequence misses the ratio (a
  // chance of alpha at most, over all looks, for observations near enough to normal): the
  // timer's step alone is as wide as the band, so `same` is out of reach, and the interval
  // without that floor already lies inside the band, so the ratio does too, and an interval
  // wholly beyond the band's edge would have to miss it. Never before
  // min_observations_to_stop_early: a few bunched observations (process pairs that share an
  // offset) make a narrow interval by chance, and a stop there would lose a real change.
  [[nodiscard]] bool no_verdict_reachable(double band) const;
  // True when, at the spread the observations show, no verdict can come by `limit` observations
  // even at the most favourable ratio: the interval after `limit` would still be wider than the
  // band (so `same` is out of reach even for a ratio of exactly 1) and wider than the mean's
  // distance beyond the band's edge (so is a change). It reads the spread, not the mean, for
  // `same`: a mean that wanders near the edge early does not stop a state whose spread would
  // settle it. Never before min_observations_to_give_up, nor with `limit` reached already.
  [[nodiscard]] bool out_of_reach(double band, std::size_t limit) const;
  // The same with `same` held against `same_band` and a change against `change_band`, and, where
  // given, each observation from here on of `later_variance` (rounds of more blocks:
  // compare/round_blocks.hpp).
  [[nodiscard]] bool out_of_reach(double same_band, std::size_t limit, double change_band,
                                  std::optional<double> later_variance = std::nullopt) const;
  // Where `band` is out_of_reach within a third of the observations left before `limit` (room
  // for the mean to wander): the narrowest band in whole `step`s above it, up to `widest`, that
  // is not; else `widest` where it is in reach by `limit`. Empty before
  // min_observations_to_give_up, when `band` itself is in reach, or when `widest` is not.
  // Judging `same` against a band chosen so keeps the chance of a false verdict within alpha:
  // the sequence covers the ratio at every look at once, whatever band its interval is then
  // held against.
  // `later_variance` as for out_of_reach.
  [[nodiscard]] std::optional<double>
  reachable_band(double band, std::size_t limit, double widest, double step,
                 std::optional<double> later_variance = std::nullopt) const;

private:
  // The first count up to `limit` whose interval, later observations of `later_variance`, is
  // narrower than `room` on the log scale (less the timer's floor); empty before 3 observations.
  [[nodiscard]] std::optional<std::size_t> observations_within(double room, std::size_t limit,
                                                               double later_variance) const;
  // The room the most favourable ratio leaves (out_of_reach): `same_band` for a ratio of 1, or
  // the mean's distance past `change_band`, whichever is wider.
  [[nodiscard]] double best_room(double same_band, double change_band) const;
  // The squared deviations `count` observations would sum to, those after these of
  // `later_variance`.
  [[nodiscard]] double squares_at(std::size_t count, double later_variance) const;

  double alpha_;
  double timer_step_fraction_;
  std::size_t count_ = 0;
  double mean_ = 0;
  double sum_squared_deviations_ = 0; // Welford's running sum, stable for tiny spreads
};

// What the spread floor (docs/ab.md) makes of a look at a state still undecided, whose `same` is
// judged at `same_band` (the threshold, or a band it was widened to). `give_up`: not even
// `widest_band` could settle `same` within `give_up_beyond` observations, nor a change beyond
// the threshold show (0: never). `same_band`: set where `same` is out of reach within
// `widen_within` observations, the band to go on at (reachable_band in half steps of the
// threshold up to `widest_band`; never where `widest_band` is no wider than `same_band`).
// `later_variance`: each observation from here on of that variance, where the rounds to come
// differ from those seen (more blocks a round); none: the spread seen.
struct spread_floor_look {
  bool give_up = false;
  std::optional<double> same_band;
};
[[nodiscard]] spread_floor_look look_at_spread(const sequential_ratio& s, double threshold,
                                               double same_band, std::size_t widen_within,
                                               double widest_band, std::size_t give_up_beyond,
                                               std::optional<double> later_variance = std::nullopt);

} // namespace kerntime::detail
