// More blocks in a round where a state's own preparations spread (compare/round_blocks.hpp): the
// blocks' own variance read from their halves, past the trials' place in the block; what more
// blocks would take; the choice by cost; and, simulated, that rounds of chosen blocks keep the
// sequence's false verdicts within alpha while a preparation-bound state settles in far fewer
// rounds and a process-bound one keeps its one block.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iostream>
#include <vector>

#include "compare/confidence_sequence.hpp"
#include "compare/round_blocks.hpp"
#include "normal_draws.hpp"

namespace kerntime::detail {
namespace {

// A state's trials in rounds of fresh process pairs: every trial's log time is its side's process
// offset (SD `process`), its own noise (SD `own`), and a place effect: the trials in the 1st and
// 3rd place of a block `place` slower (as launch-bound work read on an H100).
struct trial_model {
  double own = 0.01;
  double process = 0.002;
  double place = 0;
};

struct state_trials {
  std::vector<double> a;
  std::vector<double> b;
  std::vector<std::size_t> blocks_per_round;
  std::vector<double> rounds; // each round's mean block log-ratio, as kerntime ab reads it
};

void add_round(state_trials& s, std::size_t blocks, const trial_model& m, normal_draws& z) {
  const std::size_t round = s.blocks_per_round.size();
  const double a_offset = m.process * z();
  const double b_offset = m.process * z();
  double sum = 0;
  for (std::size_t k = 0; k < blocks; ++k) {
    std::array<double, trials_per_block> times{};
    double a_pair[2];
    double b_pair[2];
    std::size_t a_seen = 0;
    std::size_t b_seen = 0;
    for (std::size_t place = 0; place < trials_per_block; ++place) {
      const ab_side side = side_in_round(round, place);
      const double shift = place % 2 == 0 ? m.place : 0;
      const double offset = side == ab_side::a ? a_offset : b_offset;
      const double ns = 1000 * std::exp(offset + shift + (m.own * z()));
      (side == ab_side::a ? a_pair[a_seen++] : b_pair[b_seen++]) = ns;
    }
    // In A B B A order, as the block's log-ratio reads them.
    times = {a_pair[0], b_pair[0], b_pair[1], a_pair[1]};
    s.a.insert(s.a.end(), {a_pair[0], a_pair[1]});
    s.b.insert(s.b.end(), {b_pair[0], b_pair[1]});
    sum += block_log_ratio(trial_order::balanced, times);
  }
  s.blocks_per_round.push_back(blocks);
  s.rounds.push_back(sum / static_cast<double>(blocks));
}

double variance_of(const std::vector<double>& x) {
  double mean = 0;
  for (const double v : x) {
    mean += v;
  }
  mean /= static_cast<double>(x.size());
  double squares = 0;
  for (const double v : x) {
    squares += (v - mean) * (v - mean);
  }
  return squares / static_cast<double>(x.size());
}

TEST(round_blocks, a_blocks_own_spread_is_read_from_its_halves_past_the_trials_place) {
  // 1.5 % own noise a trial (a block's own SD 1.5 %), 0.5 % per process a side (0.7 % a round),
  // and the 1st and 3rd trials 4 % slower, which the block's mean cancels and a half does not.
  normal_draws z(7);
  state_trials s;
  for (int r = 0; r < 400; ++r) {
    add_round(s, 1, {.own = 0.015, .process = 0.005, .place = 0.04}, z);
  }
  const auto spread = split_round_spread(s.a, s.b, s.blocks_per_round, variance_of(s.rounds));
  ASSERT_TRUE(spread);
  EXPECT_EQ(spread->degrees, 398U); // 400 blocks less one mean per order
  EXPECT_NEAR(std::sqrt(spread->within), 0.015, 0.0015);
  EXPECT_NEAR(std::sqrt(spread->between), 0.005 * std::sqrt(2.0), 0.0025);
  // Read about one mean for both orders, the place effect would pass for 4 % of a block's own.
  double squares = 0;
  for (std::size_t k = 0; k < s.blocks_per_round.size(); ++k) {
    const double d = std::log(s.b[2 * k] / s.a[2 * k]) - std::log(s.b[2 * k + 1] / s.a[2 * k + 1]);
    squares += d * d;
  }
  EXPECT_GT(std::sqrt(squares / 400 / 4), 0.03);
}

TEST(round_blocks, rounds_of_several_blocks_count_each_block_once_and_each_round_once) {
  normal_draws z(8);
  state_trials s;
  for (int r = 0; r < 200; ++r) {
    add_round(s, r < 100 ? 1 : 4, {.own = 0.02, .process = 0.0}, z);
  }
  const auto spread = split_round_spread(s.a, s.b, s.blocks_per_round, variance_of(s.rounds));
  ASSERT_TRUE(spread);
  EXPECT_EQ(spread->degrees, 500U - 2);
  EXPECT_NEAR(std::sqrt(spread->within), 0.02, 0.0015);
  // Half the rounds carried a block's whole own variance, half a quarter of it: what is left over
  // is the rounds' variance's own sampling error (about a tenth of it, from 200 rounds).
  EXPECT_LT(spread->between, 0.2 * spread->within);
}

TEST(round_blocks, too_few_blocks_or_a_missing_time_give_no_split) {
  normal_draws z(9);
  state_trials s;
  add_round(s, 1, {}, z);
  add_round(s, 1, {}, z);
  // One block per order: no degree of freedom about either mean.
  EXPECT_FALSE(split_round_spread(s.a, s.b, s.blocks_per_round, 1e-4));
  add_round(s, 1, {}, z);
  add_round(s, 1, {}, z);
  EXPECT_TRUE(split_round_spread(s.a, s.b, s.blocks_per_round, 1e-4));
  s.a[3] = 0;
  EXPECT_FALSE(split_round_spread(s.a, s.b, s.blocks_per_round, 1e-4));
}

TEST(round_blocks, more_blocks_than_the_first_round_are_what_a_run_names) {
  EXPECT_FALSE(ran_more_blocks(std::vector<std::size_t>{}));
  EXPECT_FALSE(ran_more_blocks(std::vector<std::size_t>{1, 1, 1}));
  EXPECT_FALSE(
      ran_more_blocks(std::vector<std::size_t>{2, 2, 1})); // --pairs-per-round 4, a short round
  EXPECT_TRUE(ran_more_blocks(std::vector<std::size_t>{1, 1, 4, 2}));
  EXPECT_EQ(blocks_in_all(std::vector<std::size_t>{1, 1, 4, 2}), 8U);
  EXPECT_EQ(blocks_in_all(std::vector<std::size_t>{}), 0U);
}

TEST(round_blocks, more_blocks_shorten_the_projection_only_where_the_blocks_own_spread_is) {
  sequential_ratio rounds;
  normal_draws z(10);
  for (int r = 0; r < 8; ++r) {
    rounds.add_block(0.012 * z());
  }
  const auto own =
      project_blocks(rounds, 0.01, 0.01, {.within = 1.4e-4, .between = 0.1e-4}, 8, 1000);
  ASSERT_EQ(own.size(), 4U); // 1, 2, 4, 8
  EXPECT_EQ(own[2].blocks, 4U);
  ASSERT_TRUE(own[0].rounds && own[2].rounds);
  EXPECT_LT(*own[2].rounds, *own[0].rounds);
  const auto process =
      project_blocks(rounds, 0.01, 0.01, {.within = 0.05e-4, .between = 1.4e-4}, 8, 1000);
  ASSERT_TRUE(process[0].rounds && process[2].rounds);
  EXPECT_GE(*process[2].rounds + 1, *process[0].rounds);
}

TEST(round_blocks, the_choice_weighs_the_rounds_saved_against_the_blocks_trials) {
  const round_costs cheap{.round_seconds = 0.5, .block_seconds = 0.05};
  // Rounds left from round 6: 34, 16, 7 or 3; at 0.55, 0.6, 0.7 or 0.9 s a round, 8 cost least.
  const std::vector<blocks_projection> steep{{1, 40}, {2, 22}, {4, 13}, {8, 9}};
  EXPECT_EQ(blocks_for_next_round(steep, 6, 6, cheap), 8U);
  // 14, 10, 8 or 7 rounds left: 4 blocks cost 5.6 s, 2 6.0 s, 8 6.3 s, 1 7.7 s.
  const std::vector<blocks_projection> flat{{1, 20}, {2, 16}, {4, 14}, {8, 13}};
  EXPECT_EQ(blocks_for_next_round(flat, 6, 6, cheap), 4U);
  // Blocks as dear as a round's start: 14 s at one block, 15 s at two.
  EXPECT_EQ(blocks_for_next_round(flat, 6, 6, {.round_seconds = 0.5, .block_seconds = 0.5}), 1U);
  // Where they cost within 5 % of each other, the fewer blocks.
  const std::vector<blocks_projection> alike{{1, 41}, {2, 40}};
  EXPECT_EQ(blocks_for_next_round(alike, 6, 6, {.round_seconds = 0.5, .block_seconds = 0.0}), 1U);
  // Before the minimum, a state settles no sooner whatever its blocks: one.
  const std::vector<blocks_projection> soon{{1, 5}, {2, 4}, {4, 3}};
  EXPECT_EQ(blocks_for_next_round(soon, 3, 6, cheap), 1U);
  // None within the projection's limit: not weighed.
  const std::vector<blocks_projection> far{{1, std::nullopt}, {2, std::nullopt}, {4, 30}};
  EXPECT_EQ(blocks_for_next_round(far, 10, 6, cheap), 4U);
  EXPECT_EQ(blocks_for_next_round({}, 10, 6, cheap), 1U);
  // Past the run's limit (50) is weighed as it is: 120 rounds at one block, 35 at four.
  const std::vector<blocks_projection> past{{1, 120}, {2, 65}, {4, 35}};
  EXPECT_EQ(blocks_for_next_round(past, 10, 6, cheap), 4U);
}

struct simulated {
  int same = 0;
  int wrong = 0; // slower or faster: the sides are the same
  int undecided = 0;
  int missed = 0; // states whose interval left out the true ratio (1) at some look from round 3
  std::vector<std::size_t> rounds_to_decide;
  double blocks_per_round = 0; // averaged over every round of every state
};

// A/A states looked at after every round from the 6th to the 50th at ±1 %, each round's blocks
// chosen from the rounds before it (adaptive) or always one.
simulated simulate(const trial_model& m, bool adaptive, int states, std::uint64_t seed) {
  constexpr std::size_t min_rounds = 6;
  constexpr std::size_t limit = 50;
  constexpr double band = 0.01;
  normal_draws z(seed);
  simulated out;
  std::size_t rounds_run = 0;
  std::size_t blocks_run = 0;
  for (int i = 0; i < states; ++i) {
    state_trials s;
    sequential_ratio sequence;
    std::size_t next = 1;
    bool missed_here = false;
    ab_decision decision = ab_decision::undecided;
    while (s.rounds.size() < limit && decision == ab_decision::undecided) {
      add_round(s, next, m, z);
      sequence.add_block(s.rounds.back());
      ++rounds_run;
      blocks_run += next;
      const ab_interval look = sequence.interval();
      missed_here = missed_here || look.low > 1 || look.high < 1;
      if (s.rounds.size() >= min_rounds) {
        decision = sequence.decision(band);
      }
      if (adaptive && decision == ab_decision::undecided) {
        // As read_ab reads it: the rounds' variance unbiased, like the blocks' own.
        const double n = static_cast<double>(s.rounds.size());
        if (const auto spread = split_round_spread(s.a, s.b, s.blocks_per_round,
                                                   sequence.variance() * n / (n - 1))) {
          const auto p = project_blocks(sequence, band, band, *spread, 4, 10 * limit);
          next = blocks_for_next_round(p, s.rounds.size(), min_rounds,
                                       {.round_seconds = 0.5, .block_seconds = 0.05});
        }
      }
    }
    out.missed += missed_here ? 1 : 0;
    if (decision == ab_decision::same) {
      ++out.same;
      out.rounds_to_decide.push_back(s.rounds.size());
    } else if (decision == ab_decision::undecided) {
      ++out.undecided;
    } else {
      ++out.wrong;
    }
  }
  out.blocks_per_round = static_cast<double>(blocks_run) / static_cast<double>(rounds_run);
  std::sort(out.rounds_to_decide.begin(), out.rounds_to_decide.end());
  return out;
}

std::size_t median_rounds(const simulated& s) {
  return s.rounds_to_decide.empty() ? 0 : s.rounds_to_decide[s.rounds_to_decide.size() / 2];
}

TEST(round_blocks, a_preparation_bound_state_settles_in_far_fewer_rounds_and_none_falsely) {
  // A block's own SD 1.2 % (as the hot 16 MiB copy's on an H100), 0.2 % per process a side, the
  // trials' place 3 %: at one block a round ±1 % takes about 30 rounds.
  const trial_model m{.own = 0.012, .process = 0.002, .place = 0.03};
  const simulated one = simulate(m, false, 1000, 21);
  const simulated chosen = simulate(m, true, 1000, 21);
  std::cout << "preparation-bound A/A: one block " << one.same << " same (median "
            << median_rounds(one) << " rounds), " << one.wrong << " false; chosen blocks "
            << chosen.same << " same (median " << median_rounds(chosen) << " rounds, "
            << chosen.blocks_per_round << " blocks a round), " << chosen.wrong
            << " false; intervals "
            << "that ever left out the ratio: " << one.missed << " and " << chosen.missed << '\n';
  // The sequence's promise, alpha 5 %: at most 5 % of states' intervals ever leave out the true
  // ratio, over every look, whatever blocks the rounds ran.
  EXPECT_LE(chosen.missed, 50) << "one block: " << one.missed;
  EXPECT_EQ(chosen.wrong, 0);
  EXPECT_GE(chosen.same, one.same);
  // The rounds before the blocks were chosen keep their spread in the sequence's: a third fewer.
  EXPECT_LT(median_rounds(chosen) * 10, median_rounds(one) * 7);
  EXPECT_GT(chosen.blocks_per_round, 1.5);
}

TEST(round_blocks, a_process_bound_state_keeps_its_one_block_and_its_verdicts) {
  // A block's own SD 0.3 %, 0.6 % per process a side (0.85 % a round): more blocks buy nothing.
  const trial_model m{.own = 0.003, .process = 0.006, .place = 0.03};
  const simulated one = simulate(m, false, 1000, 22);
  const simulated chosen = simulate(m, true, 1000, 22);
  std::cout << "process-bound A/A: one block " << one.same << " same (median " << median_rounds(one)
            << "), " << one.wrong << " false; chosen " << chosen.same << " same (median "
            << median_rounds(chosen) << ", " << chosen.blocks_per_round << " blocks a round), "
            << chosen.wrong << " false\n";
  EXPECT_LE(chosen.missed, 50) << "one block: " << one.missed;
  EXPECT_EQ(chosen.wrong, 0);
  EXPECT_LT(chosen.blocks_per_round, 1.3);
  EXPECT_NEAR(median_rounds(chosen), median_rounds(one), 2);
}

} // namespace
} // namespace kerntime::detail
