#pragma once
// How many blocks of A B B A a state runs in its next round of `kerntime ab` (docs/ab.md, "More
// blocks where the preparations spread"). A round's observation is the mean of the state's
// blocks in one fresh process pair, and its variance has two parts: what the process pair and its
// minute add, which more blocks in the same pair leave as it is, and a block's own (its four
// preparations'), which k blocks divide by k. Where the second part is most of it (the cold 1 MiB
// copy, the hot 16 MiB copy, the lone one-warp kernel on an H100), four blocks a round take the
// state to a verdict in about a third of the rounds; where the first is (launch-bound work), more
// blocks buy nothing. Each round's blocks are chosen from the rounds before it, so the rounds'
// means stay the state's and the sequence over them stays valid (simulated in
// tests/compare/round_blocks_test.cpp).

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "compare/confidence_sequence.hpp"

namespace kerntime::detail {

// A state's rounds' variance on the log scale, in two parts.
struct round_spread {
  double within = 0;       // one block's own, from its preparations
  double between = 0;      // the rest of the rounds' variance: what more blocks leave
  std::size_t degrees = 0; // of `within`: the blocks read, less one per order
};

// The blocks' own variance read from their halves: a block's d = log(b1 / a1) - log(b2 / a2)
// loses the process pair's offset (both halves carry it) and has four times a block's own
// variance. A trial's place in its block moves it too (H100: the first and third trials of
// launch-bound work 1-4 % slower than the second and fourth; the block's mean cancels that, d does
// not), so the differences are read about their mean per order (A first or B first, alternating
// from round to round, first_in_round). `a` and `b`: each side's preparation times in the order
// they ran (block k: a[2k], b[2k], b[2k+1], a[2k+1]); `blocks_per_round`: the blocks each round
// ran; `rounds_variance`: the (unbiased) variance of the last `rounds_read` rounds, those the
// state's sequence reads (as adjusted by the reference, where it is; all of them where
// `rounds_read` is 0 or more than there are). None with fewer than 2 degrees of freedom.
[[nodiscard]] std::optional<round_spread>
split_round_spread(std::span<const double> a, std::span<const double> b,
                   std::span<const std::size_t> blocks_per_round, double rounds_variance,
                   std::size_t rounds_read = 0);

// Whether a state's rounds (the blocks each ran) ran more blocks than its first did: the rounds
// where kerntime ab chose more, which its notes and last lines name.
[[nodiscard]] bool ran_more_blocks(std::span<const std::size_t> blocks_per_round);
// The blocks its rounds ran in all.
[[nodiscard]] std::size_t blocks_in_all(std::span<const std::size_t> blocks_per_round);

// What `blocks` blocks in every round from here on would take: the rounds in all until the
// spread would settle the state (none beyond the limit).
struct blocks_projection {
  std::size_t blocks = 1;
  std::optional<std::size_t> rounds;
};

// For 1, 2, 4, ... blocks up to `most_blocks`, with the later rounds' variance `between + within /
// blocks`: sequential_ratio::observations_to_decide from the mean to the nearer verdict (`same`
// at `same_band`, or a change past `threshold`); where no count has one within `limit` (a mean on
// a band's edge after a few rounds would choose one block where more are what settles it),
// observations_to_settle, what the spread would settle at the most favourable ratio.
[[nodiscard]] std::vector<blocks_projection>
project_blocks(const sequential_ratio& rounds, double same_band, double threshold,
               const round_spread& spread, std::size_t most_blocks, std::size_t limit);

// What one more round costs a state: the round's own start (the process pair's wait, the
// reference), which every open state shares but the last one pays alone, and each block's trials.
struct round_costs {
  double round_seconds = 0;
  double block_seconds = 0;
};

// The blocks for the next round: of the projections, the one whose rounds left (at least to
// `min_rounds`) cost least at `costs`, the fewer blocks where two cost within 5 % of each other.
// The projections are not held to the run's limit: a state that will reach it either way still
// gets the narrower interval, and the spread floor a narrower band. One block where no projection
// has a count.
[[nodiscard]] std::size_t blocks_for_next_round(std::span<const blocks_projection> projections,
                                                std::size_t rounds_done, std::size_t min_rounds,
                                                const round_costs& costs);

} // namespace kerntime::detail
