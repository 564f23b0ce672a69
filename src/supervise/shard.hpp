#pragma once
// Slices of a plan for clusters: `--shard INDEX/COUNT` takes the states whose plan index modulo
// COUNT is INDEX. Every state is in exactly one shard, shards differ by at most one state, the
// slice depends only on the plan (stable while the plan is unchanged), and taking every
// COUNT-th state spreads each benchmark's large and small states over the shards.

#include <cstddef>
#include <string_view>
#include <vector>

#include "kerntime/report.hpp"

namespace kerntime::detail {

// "3/8" → {3, 8}. Throws kerntime::invalid_argument naming the text and the form it needs.
[[nodiscard]] shard_spec parse_shard(std::string_view text);

// The plan indices of `shard` among `plan_states` states, ascending.
[[nodiscard]] std::vector<std::size_t> shard_indices(std::size_t plan_states, shard_spec shard);

} // namespace kerntime::detail
