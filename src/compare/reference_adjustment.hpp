#pragma once
// A control variate for `kerntime ab` (docs/ab.md, "The reference"). A worker process sits in one
// of a few modes that slow every launch-bound state it runs alike (on an H100 the process means of
// CUB's 64 Ki sum and sort followed those of 16 one-warp launches with correlation +0.97 and
// +0.99). Each round both workers also measure kerntime's own launch-bound reference, the same
// code on both sides, so its true B/A is exactly 1 and its round log-ratio is the round's mode
// difference plus noise. A state's round observation less beta times the reference's keeps the
// state's mean and loses the part the two share. Beta for round r comes from rounds before r
// only (predictable), so the confidence sequence over the adjusted observations stays valid.

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "compare/confidence_sequence.hpp"

namespace kerntime::detail {

// No adjustment before this many earlier rounds with a reference: a slope from fewer is noise.
inline constexpr std::size_t reference_min_rounds = 4;
// A slope whose t (its size over its standard error) is below this counts as none.
inline constexpr double reference_min_t = 2;
// Beta is held to [0, 2]: a mode that slows the reference speeds no state, and no measured
// state moved by more than 1.3 times the reference's move.
inline constexpr double reference_beta_max = 2;

struct reference_adjusted {
  std::vector<double> observations; // each round's, adjusted where a beta was known
  std::vector<double> adjusted;     // the rounds that were adjusted (a beta was known before them
                                    // and the round had a reference), in order
  std::optional<double> beta;       // the slope of all rounds read (for the next round); none
                                    // until reference_min_rounds rounds had a reference
  double sd_all = 0;                // the SD of all rounds as measured (0 with fewer than 2)
  double sd_before = 0;             // the SD of the adjusted rounds as measured
  double sd_after = 0;              // and as adjusted (both 0 with fewer than 2 adjusted)
};

// The slope of `state` on `reference` over the rounds that have a reference, clamped to
// [0, reference_beta_max], and 0 where its t is below reference_min_t; none with fewer than
// reference_min_rounds such rounds or a reference that did not move.
[[nodiscard]] std::optional<double>
reference_beta(std::span<const double> state, std::span<const std::optional<double>> reference);

// Each round's state log-ratio less beta × the reference's log-ratio of the same round, beta from
// the rounds before it. A round without a reference, or before a beta is known, is left as it is.
// `reference` is as long as `state` (one entry per round) or empty (nothing adjusted).
[[nodiscard]] reference_adjusted
adjust_by_reference(std::span<const double> state,
                    std::span<const std::optional<double>> reference);

// The confidence sequence of a state whose rounds have a reference: one over the rounds as
// measured and one over the adjusted rounds alone, each at alpha / 2, so that each misses the
// true ratio at some look with a chance of alpha / 2 at most and both together with alpha at
// most; the interval is where the two overlap. A state the reference does not follow decides as
// by the first (a little wider than at alpha); one it follows by the second, from its first
// adjusted rounds on, free of the modes the early rounds carry. Without a reference: the first
// alone, at alpha; so too where the reference has no round yet (the first round that has one
// comes before any state's on one GPU, as the reference is measured before the round's states).
class referenced_ratio {
public:
  // `rounds`: each round's log-ratio; `reference`: as long as `rounds`, or empty (none).
  referenced_ratio(double alpha, double timer_step_fraction, std::span<const double> rounds,
                   std::span<const std::optional<double>> reference);

  [[nodiscard]] ab_interval interval() const;
  // The sequence whose interval is narrower now: what the state's verdict rests on, for the
  // questions the interval alone does not answer (how many rounds would decide; the floor).
  [[nodiscard]] const sequential_ratio& deciding() const;
  // Whether deciding() is the sequence over the adjusted rounds.
  [[nodiscard]] bool adjusted_decides() const { return &deciding() != &measured_; }
  [[nodiscard]] const reference_adjusted& adjustment() const { return adjustment_; }
  [[nodiscard]] bool referenced() const { return adjusted_.has_value(); }

private:
  reference_adjusted adjustment_;
  sequential_ratio measured_;
  std::optional<sequential_ratio> adjusted_;
};

} // namespace kerntime::detail
