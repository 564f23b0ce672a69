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
  std::optional<double> beta;       // the slope of all rounds read (for the next round); none
                                    // until reference_min_rounds rounds had a reference
  std::size_t adjusted_rounds = 0;  // rounds that were adjusted (a beta was known before them)
  double sd_before = 0;             // the SD of the rounds' observations as measured
  double sd_after = 0;              // and as adjusted (the same rounds); 0 with fewer than 2
};

// The slope of `state` on `reference` over the rounds that have a reference, clamped to
// [0, reference_beta_max], and 0 where its t is below reference_min_t; none with fewer than
// reference_min_rounds such rounds or a reference that did not move.
[[nodiscard]] std::optional<double> reference_beta(std::span<const double> state,
                                                   std::span<const std::optional<double>> reference);

// Each round's state log-ratio less beta × the reference's log-ratio of the same round, beta from
// the rounds before it. A round without a reference, or before a beta is known, is left as it is.
// `reference` is as long as `state` (one entry per round) or empty (nothing adjusted).
[[nodiscard]] reference_adjusted
adjust_by_reference(std::span<const double> state,
                    std::span<const std::optional<double>> reference);

} // namespace kerntime::detail
