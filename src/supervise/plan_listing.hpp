#pragma once
// The plan as a file: `kerntime list --json` writes which states a run (or one shard of it)
// covers, with their plan indices, so a cluster script can check the slicing without a GPU.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kerntime/report.hpp"

namespace kerntime::detail {

struct plan_entry {
  std::size_t plan_index = 0;
  std::string name;      // the state name
  std::string benchmark; // its benchmark
};

struct plan_listing {
  std::string kerntime_version;
  std::optional<shard_spec> shard;
  std::size_t plan_states = 0; // in the full plan
  std::vector<plan_entry> states;
};

// {"kind": "kerntime_plan", "kerntime_version", "shard", "plan_states", "states": [...]}.
[[nodiscard]] std::string plan_to_json(const plan_listing& plan);
// Whether a JSON document is a plan (else it should be a result set).
[[nodiscard]] bool looks_like_plan(std::string_view json_text);
// Throws kerntime::invalid_argument naming `source` and what is wrong.
[[nodiscard]] plan_listing parse_plan(std::string_view json_text, std::string_view source);

} // namespace kerntime::detail
