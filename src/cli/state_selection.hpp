#pragma once
// What `list` and `run` select: the states a filter and axis overrides make of the registry, and
// the shard of them a command covers.

#include <CLI/CLI.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "cli/state_plan.hpp"
#include "kerntime/benchmark.hpp"
#include "supervise/shard.hpp"

namespace kerntime::detail {

// What `list` and `run` select.
struct selection_flags {
  std::optional<std::string> filter;
  std::vector<std::string> axis_specs;
  std::optional<std::string> shard; // "INDEX/COUNT"
};

void add_selection_options(CLI::App& command, selection_flags& flags);
[[nodiscard]] state_plan make_plan(const benchmark_registry& registry,
                                   const selection_flags& flags);
[[nodiscard]] std::optional<shard_spec> shard_of(const selection_flags& flags);
// The plan indices a command covers: all, or its shard's.
[[nodiscard]] std::vector<std::size_t> selected_indices(const state_plan& plan,
                                                        const std::optional<shard_spec>& shard);

} // namespace kerntime::detail
