#include "compare/round_blocks.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

namespace kerntime::detail {

std::optional<round_spread> split_round_spread(std::span<const double> a, std::span<const double> b,
                                               std::span<const std::size_t> blocks_per_round,
                                               double rounds_variance, std::size_t rounds_read) {
  // Per order (index 0: A first), the blocks' half differences.
  std::array<std::vector<double>, 2> differences;
  std::vector<double> inverse_blocks; // per round, 1 / its blocks
  std::size_t block = 0;
  for (std::size_t round = 0; round < blocks_per_round.size(); ++round) {
    const std::size_t blocks = blocks_per_round[round];
    if (blocks == 0 || 2 * (block + blocks) > std::min(a.size(), b.size())) {
      break;
    }
    const std::size_t order = first_in_round(round) == ab_side::a ? 0 : 1;
    for (std::size_t k = block; k < block + blocks; ++k) {
      const double a1 = a[2 * k];
      const double a2 = a[(2 * k) + 1];
      const double b1 = b[2 * k];
      const double b2 = b[(2 * k) + 1];
      if (!(a1 > 0 && a2 > 0 && b1 > 0 && b2 > 0)) {
        return std::nullopt;
      }
      differences[order].push_back(std::log(b1 / a1) - std::log(b2 / a2));
    }
    block += blocks;
    inverse_blocks.push_back(1 / static_cast<double>(blocks));
  }
  double squares = 0;
  std::size_t degrees = 0;
  for (const auto& d : differences) {
    if (d.size() < 2) {
      continue;
    }
    double mean = 0;
    for (const double x : d) {
      mean += x;
    }
    mean /= static_cast<double>(d.size());
    for (const double x : d) {
      squares += (x - mean) * (x - mean);
    }
    degrees += d.size() - 1;
  }
  if (degrees < 2 || inverse_blocks.empty() || !(rounds_variance >= 0)) {
    return std::nullopt;
  }
  round_spread spread;
  spread.within = squares / static_cast<double>(degrees) / 4;
  spread.degrees = degrees;
  // The rounds read averaged their blocks: each carried within / its blocks of a block's own.
  const std::size_t read =
      rounds_read == 0 ? inverse_blocks.size() : std::min(rounds_read, inverse_blocks.size());
  double inverse = 0;
  for (std::size_t r = inverse_blocks.size() - read; r < inverse_blocks.size(); ++r) {
    inverse += inverse_blocks[r];
  }
  inverse /= static_cast<double>(read);
  spread.between = std::max(0.0, rounds_variance - (spread.within * inverse));
  return spread;
}

bool ran_more_blocks(std::span<const std::size_t> blocks_per_round) {
  return !blocks_per_round.empty() &&
         *std::max_element(blocks_per_round.begin(), blocks_per_round.end()) >
             blocks_per_round.front();
}

std::size_t blocks_in_all(std::span<const std::size_t> blocks_per_round) {
  return std::accumulate(blocks_per_round.begin(), blocks_per_round.end(), std::size_t{0});
}

std::vector<blocks_projection> project_blocks(const sequential_ratio& rounds, double same_band,
                                              double threshold, const round_spread& spread,
                                              std::size_t most_blocks, std::size_t limit) {
  const auto later = [&](std::size_t blocks) {
    return spread.between + (spread.within / static_cast<double>(blocks));
  };
  std::vector<blocks_projection> projections;
  bool any = false;
  for (std::size_t blocks = 1; blocks <= std::max<std::size_t>(1, most_blocks); blocks *= 2) {
    // The nearer verdict from the mean: `same` at its band, or a change past the threshold.
    auto rounds_to = rounds.observations_to_decide(same_band, limit, later(blocks));
    if (threshold < same_band) {
      const auto to_change = rounds.observations_to_decide(threshold, limit, later(blocks));
      rounds_to = !rounds_to ? to_change : !to_change ? rounds_to : std::min(rounds_to, to_change);
    }
    any = any || rounds_to.has_value();
    projections.push_back({blocks, rounds_to});
  }
  if (!any) { // a mean on a band's edge: what the spread would settle
    for (auto& p : projections) {
      p.rounds = rounds.observations_to_settle(same_band, threshold, limit, later(p.blocks));
    }
  }
  return projections;
}

std::size_t blocks_for_next_round(std::span<const blocks_projection> projections,
                                  std::size_t rounds_done, std::size_t min_rounds,
                                  const round_costs& costs) {
  std::size_t best = 1;
  double best_cost = std::numeric_limits<double>::infinity();
  for (const auto& p : projections) {
    if (!p.rounds) {
      continue; // beyond any limit worth weighing
    }
    const std::size_t until = std::max({*p.rounds, min_rounds, rounds_done + 1});
    const double left = static_cast<double>(until - rounds_done);
    const double cost =
        left * (costs.round_seconds + (static_cast<double>(p.blocks) * costs.block_seconds));
    // A few per cent is within what the projection can tell: the fewer blocks keep it.
    if (cost < best_cost * 0.95) {
      best = p.blocks;
      best_cost = cost;
    }
  }
  return best;
}

} // namespace kerntime::detail
