// The reference's control variate (compare/reference_adjustment.hpp): exact slopes on made-up
// rounds, beta from earlier rounds only, its bounds, rounds without a reference, the two
// sequences' overlap, and by simulation (fixed seeds) A/A states whose process pairs sit in two
// modes shared with the reference: the interval where the sequence over the rounds as measured
// and the one over the adjusted rounds agree still covers the true ratio, decides `same` in fewer
// rounds, keeps a real change's size, and costs a state the modes do not move nothing to speak
// of. docs/ab.md quotes these numbers.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>
#include <random>
#include <vector>

#include "compare/confidence_sequence.hpp"
#include "compare/reference_adjustment.hpp"
#include "kerntime/errors.hpp"
#include "normal_draws.hpp"

namespace kerntime::detail {
namespace {

std::vector<std::optional<double>> all_present(const std::vector<double>& x) {
  return {x.begin(), x.end()};
}

TEST(reference_adjustment, a_state_that_moves_with_the_reference_loses_that_move_from_round_five) {
  const std::vector<double> x{0.02, -0.01, 0.03, 0.00, -0.02, 0.05};
  std::vector<double> y;
  y.reserve(x.size());
  for (const double v : x) {
    y.push_back(0.004 + (0.5 * v));
  }
  const auto out = adjust_by_reference(y, all_present(x));
  ASSERT_EQ(out.observations.size(), y.size());
  for (std::size_t r = 0; r < reference_min_rounds; ++r) {
    EXPECT_DOUBLE_EQ(out.observations[r], y[r]) << "round " << r << " has no earlier beta";
  }
  for (std::size_t r = reference_min_rounds; r < y.size(); ++r) {
    EXPECT_NEAR(out.observations[r], 0.004, 1e-12) << "round " << r;
  }
  EXPECT_EQ(out.adjusted.size(), y.size() - reference_min_rounds);
  ASSERT_TRUE(out.beta);
  EXPECT_NEAR(*out.beta, 0.5, 1e-12);
  EXPECT_GT(out.sd_before, out.sd_after);
}

TEST(reference_adjustment, a_rounds_beta_comes_from_the_rounds_before_it_only) {
  const std::vector<double> x{0.02, -0.01, 0.03, 0.01, -0.02, 0.04};
  std::vector<double> y{0.01, -0.004, 0.016, 0.003, -0.011, 0.02};
  const auto before = adjust_by_reference(y, all_present(x));
  // Round 4 changed: rounds 0–4 read as before but round 4 itself; round 5 takes a new beta.
  y[4] = 0.05;
  const auto after = adjust_by_reference(y, all_present(x));
  for (std::size_t r = 0; r < 4; ++r) {
    EXPECT_DOUBLE_EQ(after.observations[r], before.observations[r]);
  }
  const auto present = all_present(x);
  const auto beta4 = reference_beta(std::span(y).first(4), std::span(present).first(4));
  ASSERT_TRUE(beta4);
  EXPECT_DOUBLE_EQ(after.observations[4], 0.05 - (*beta4 * x[4]));
  EXPECT_NE(after.observations[5], before.observations[5]);
}

TEST(reference_adjustment, beta_is_held_between_zero_and_two) {
  const std::vector<double> x{0.02, -0.01, 0.03, 0.00};
  std::vector<double> against;
  std::vector<double> steep;
  for (const double v : x) {
    against.push_back(-0.7 * v);
    steep.push_back(5 * v);
  }
  EXPECT_DOUBLE_EQ(*reference_beta(against, all_present(x)), 0.0);
  EXPECT_DOUBLE_EQ(*reference_beta(steep, all_present(x)), reference_beta_max);
}

TEST(reference_adjustment, rounds_without_a_reference_are_left_as_they_are_and_not_counted) {
  const std::vector<double> y{0.01, 0.02, -0.011, 0.016, 0.021, 0.00, 0.005};
  const std::vector<std::optional<double>> x{0.02,  std::nullopt, -0.02, 0.03,
                                             0.041, std::nullopt, 0.01};
  // Rounds 0, 2, 3 and 4 have a reference: beta is known from round 5 on, and round 5 has none.
  EXPECT_FALSE(reference_beta(std::span(y).first(4), std::span(x).first(4)));
  const auto out = adjust_by_reference(y, x);
  for (std::size_t r = 0; r < 6; ++r) {
    EXPECT_DOUBLE_EQ(out.observations[r], y[r]) << "round " << r;
  }
  EXPECT_NE(out.observations[6], y[6]);
  EXPECT_EQ(out.adjusted.size(), 1U);
  // No reference at all: nothing adjusted, and the spread reported is the rounds' own.
  const auto none = adjust_by_reference(y, {});
  EXPECT_EQ(none.observations, y);
  EXPECT_FALSE(none.beta);
  EXPECT_TRUE(none.adjusted.empty());
  EXPECT_GT(none.sd_all, 0);
  EXPECT_DOUBLE_EQ(none.sd_after, 0);
}

TEST(reference_adjustment, the_interval_is_where_both_sequences_at_half_alpha_lie) {
  const std::vector<double> x{0.05, -0.04, 0.03, 0.0, -0.05, 0.04, 0.02, -0.03, 0.0, 0.01};
  std::vector<double> y;
  y.reserve(x.size());
  for (std::size_t r = 0; r < x.size(); ++r) {
    y.push_back((0.8 * x[r]) + (r % 2 == 0 ? 0.001 : -0.001));
  }
  const referenced_ratio both(default_alpha, 0, y, all_present(x));
  EXPECT_TRUE(both.referenced());
  sequential_ratio measured(default_alpha / 2);
  sequential_ratio adjusted(default_alpha / 2);
  for (const double v : y) {
    measured.add_block(v);
  }
  for (const double v : both.adjustment().adjusted) {
    adjusted.add_block(v);
  }
  const ab_interval i = both.interval();
  EXPECT_DOUBLE_EQ(i.low, std::max(measured.interval().low, adjusted.interval().low));
  EXPECT_DOUBLE_EQ(i.high, std::min(measured.interval().high, adjusted.interval().high));
  EXPECT_EQ(i.blocks, y.size());
  EXPECT_LT(i.high - i.low, measured.interval().high - measured.interval().low);
  // A reference with no round of its own (it failed, or was dropped) leaves the state as
  // without one: one sequence, at alpha.
  const std::vector<std::optional<double>> none(y.size());
  const referenced_ratio unreferenced(default_alpha, 0, y, none);
  EXPECT_FALSE(unreferenced.referenced());
  sequential_ratio plain(default_alpha);
  for (const double v : y) {
    plain.add_block(v);
  }
  EXPECT_DOUBLE_EQ(unreferenced.interval().low, plain.interval().low);
  EXPECT_DOUBLE_EQ(unreferenced.interval().high, plain.interval().high);
}

TEST(reference_adjustment, a_slope_the_rounds_do_not_show_apart_from_zero_counts_as_none) {
  // The state's rounds scatter about the reference's with no slope to speak of.
  const std::vector<double> x{0.02, -0.01, 0.03, 0.0, -0.02, 0.01};
  const std::vector<double> y{0.01, 0.012, -0.008, 0.015, -0.01, -0.003};
  EXPECT_DOUBLE_EQ(*reference_beta(y, all_present(x)), 0.0);
}

TEST(reference_adjustment, a_reference_that_never_moved_gives_no_beta) {
  const std::vector<double> y{0.01, 0.02, -0.01, 0.015};
  EXPECT_FALSE(reference_beta(y, all_present({0.01, 0.01, 0.01, 0.01})));
}

TEST(reference_adjustment, a_reference_for_other_rounds_is_refused) {
  const std::vector<double> y{0.01, 0.02, -0.01};
  EXPECT_THROW((void)adjust_by_reference(y, all_present({0.01, 0.02})), invalid_argument);
}

// A/A (or A/B) states whose every round is a fresh process pair: each process sits in the high
// mode with a chance of `high_share`, which slows the reference by `mode` and the state by
// `slope` × `mode`; each round's log-ratio adds the state's own noise (`state_sd`) and the
// reference's (`reference_sd`). On the H100 (docs/ab.md): `tiny_kernel/kernels=16` read two
// modes 6.5 % apart, radix sort's moved half as far (slope 0.51), reduce_sum's 1.2 times.
struct mode_model {
  double high_share = 0.3;
  double mode = 0.065;
  double slope = 0.5;
  double state_sd = 0.008;
  double reference_sd = 0.01;
  double true_log_ratio = 0;
};

struct simulated_state {
  ab_decision decision = ab_decision::undecided;
  std::size_t rounds = 0;
  bool missed = false; // an interval at some look left out the true ratio
  double last_log_ratio = 0;
};

simulated_state simulate(const mode_model& m, bool adjust, normal_draws& z, std::mt19937_64& coin,
                         std::size_t max_rounds = 50, std::size_t min_rounds = 6) {
  // A uniform draw from the generator's own bits, whose output the standard fixes.
  const auto high = [&m](std::mt19937_64& bits) {
    return static_cast<double>(bits() >> 11) * 0x1.0p-53 < m.high_share;
  };
  std::vector<double> y;
  std::vector<std::optional<double>> x;
  simulated_state s;
  const double truth = std::exp(m.true_log_ratio);
  for (std::size_t r = 0; r < max_rounds; ++r) {
    const double modes = (high(coin) ? m.mode : 0.0) - (high(coin) ? m.mode : 0.0);
    y.push_back(m.true_log_ratio + (m.slope * modes) + (m.state_sd * z()));
    x.emplace_back(modes + (m.reference_sd * z()));
    const referenced_ratio sequence(default_alpha, 0, y,
                                    adjust ? std::span<const std::optional<double>>(x)
                                           : std::span<const std::optional<double>>());
    const ab_interval interval = sequence.interval();
    s.rounds = r + 1;
    s.last_log_ratio = std::log(interval.ratio);
    if (interval.blocks >= 3 && (truth < interval.low || truth > interval.high)) {
      s.missed = true;
    }
    if (s.rounds >= min_rounds) {
      s.decision = decide(interval, default_band);
      if (s.decision != ab_decision::undecided) {
        return s;
      }
    }
  }
  s.decision = ab_decision::inconclusive;
  return s;
}

struct tally {
  int same = 0;
  int changed = 0; // slower or faster
  int inconclusive = 0;
  int missed = 0;
  std::vector<std::size_t> rounds; // of the decided ones
  double mean_log_ratio = 0;
};

tally run_many(const mode_model& m, bool adjust, std::uint64_t seed, int states) {
  normal_draws z(seed);
  std::mt19937_64 coin(seed + 1);
  tally t;
  for (int i = 0; i < states; ++i) {
    const simulated_state s = simulate(m, adjust, z, coin);
    t.same += s.decision == ab_decision::same ? 1 : 0;
    t.changed += s.decision == ab_decision::slower || s.decision == ab_decision::faster ? 1 : 0;
    t.inconclusive += s.decision == ab_decision::inconclusive ? 1 : 0;
    t.missed += s.missed ? 1 : 0;
    if (s.decision != ab_decision::inconclusive) {
      t.rounds.push_back(s.rounds);
    }
    t.mean_log_ratio += s.last_log_ratio / states;
  }
  std::sort(t.rounds.begin(), t.rounds.end());
  return t;
}

std::size_t median(const std::vector<std::size_t>& sorted) {
  return sorted.empty() ? 0 : sorted[sorted.size() / 2];
}

void print(const char* what, const tally& t) {
  std::cout << what << ": same " << t.same << ", slower/faster " << t.changed << ", inconclusive "
            << t.inconclusive << ", missed " << t.missed << ", rounds (median) " << median(t.rounds)
            << ", mean log-ratio " << t.mean_log_ratio << '\n';
}

constexpr int simulated_states = 1000;

TEST(reference_adjustment, an_aa_run_in_two_modes_decides_same_sooner_and_no_less_safely) {
  const mode_model m; // radix sort's shape
  const tally plain = run_many(m, false, 101, simulated_states);
  const tally adjusted = run_many(m, true, 101, simulated_states);
  print("A/A, as measured", plain);
  print("A/A, adjusted by the reference", adjusted);
  // Coverage at every look: the guarantee is alpha (5 %) for normal observations; two modes are
  // not normal, so hold both to it and the adjusted to no worse than the plain.
  EXPECT_LE(plain.missed, simulated_states * default_alpha);
  EXPECT_LE(adjusted.missed, std::max(plain.missed, 1) * 2);
  EXPECT_EQ(adjusted.changed, 0);
  EXPECT_GT(adjusted.same, plain.same);
  EXPECT_LT(median(adjusted.rounds), median(plain.rounds));
}

TEST(reference_adjustment, a_real_change_keeps_its_size_and_is_found) {
  mode_model m;
  m.true_log_ratio = std::log(1.03); // B 3 % slower; the reference unchanged
  const tally plain = run_many(m, false, 202, simulated_states);
  const tally adjusted = run_many(m, true, 202, simulated_states);
  print("B 3 % slower, as measured", plain);
  print("B 3 % slower, adjusted", adjusted);
  EXPECT_NEAR(adjusted.mean_log_ratio, m.true_log_ratio, 0.003);
  EXPECT_GE(adjusted.changed, plain.changed);
  EXPECT_EQ(adjusted.same, 0);
}

TEST(reference_adjustment, a_state_the_modes_do_not_move_is_not_hurt) {
  mode_model m;
  m.slope = 0; // a compute-bound state: the reference's modes are not its own
  const tally plain = run_many(m, false, 303, simulated_states);
  const tally adjusted = run_many(m, true, 303, simulated_states);
  print("A/A, a state outside the modes, as measured", plain);
  print("A/A, a state outside the modes, adjusted", adjusted);
  EXPECT_GE(adjusted.same, plain.same - (simulated_states / 50));
  // Its rounds as measured are judged at alpha / 2 instead of alpha: about a round more.
  EXPECT_LE(median(adjusted.rounds), median(plain.rounds) + 2);
  EXPECT_LE(adjusted.missed, std::max(plain.missed, 1) * 2);
}

} // namespace
} // namespace kerntime::detail
