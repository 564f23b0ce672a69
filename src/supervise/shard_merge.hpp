#pragma once
// Joining the files of a sharded run into one: `kerntime merge`. Results (or plans) of shards
// of one plan come back in plan order; a state found twice, files of different kerntime
// versions, shards of different plans and a missing shard are refused, each named.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kerntime/report.hpp"
#include "supervise/plan_listing.hpp"

namespace kerntime::detail {

template <typename T> struct named_input {
  std::string source; // the file, for messages
  T content;
};

// The benchmark name of the skipped records a partial merge writes for a missing shard's states
// ("missing_shard/shard=1of4/plan_index=5").
inline constexpr std::string_view missing_shard_benchmark = "missing_shard";

struct merge_options {
  bool allow_partial = false; // merge shards although some are missing
  std::string command_line;   // of the merge, recorded in the merged context
};

// Throws kerntime::invalid_argument naming the files and the problem. A partial merge
// (allow_partial) adds a skipped record for each planned state of each missing shard.
[[nodiscard]] result_set merge_result_sets(std::vector<named_input<result_set>> inputs,
                                           const merge_options& options);
[[nodiscard]] plan_listing merge_plans(const std::vector<named_input<plan_listing>>& inputs,
                                       const merge_options& options);

} // namespace kerntime::detail
