#pragma once
// `kerntime list`: the benchmarks, their axes and their states (or a shard's), as text or, with
// --json, as the plan scripts read (plan index, state, benchmark).

#include <optional>
#include <ostream>
#include <string>

#include "cli/state_plan.hpp"
#include "supervise/shard.hpp"

namespace kerntime::detail {

int list_states(const state_plan& plan, const std::optional<shard_spec>& shard, std::ostream& out);
// `list --json [FILE]`: the plan (or the shard's slice of it) for scripts.
int list_plan_json(const state_plan& plan, const std::optional<shard_spec>& shard,
                   const std::string& path, std::ostream& out);

} // namespace kerntime::detail
