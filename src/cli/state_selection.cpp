#include "cli/state_selection.hpp"

#include "cli/axis_override.hpp"

namespace kerntime::detail {

void add_selection_options(CLI::App& command, selection_flags& flags) {
  command.add_option("--filter", flags.filter,
                     "Only states whose name this pattern finds (RE2 syntax, searched anywhere "
                     "in the name), e.g. 'gemm|copy/bytes=1048576'");
  command
      .add_option("-a,--axis", flags.axis_specs,
                  "Override an axis: NAME=VALUE, NAME=[V1,V2], NAME=[FIRST:LAST:STEP], "
                  "NAME[pow2]=[FIRST:LAST:STEP] (exponents); repeat for several axes")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  command.add_option(
      "--shard", flags.shard,
      "Only slice INDEX of COUNT of the plan (INDEX/COUNT, from 0): the states whose "
      "plan index modulo COUNT is INDEX, e.g. --shard $SLURM_ARRAY_TASK_ID/8");
}

state_plan make_plan(const benchmark_registry& registry, const selection_flags& flags) {
  std::vector<axis_override> overrides;
  for (const auto& spec : flags.axis_specs) {
    overrides.push_back(parse_axis_override(spec));
  }
  return plan_states(registry, overrides, flags.filter);
}

std::optional<shard_spec> shard_of(const selection_flags& flags) {
  return flags.shard ? std::optional<shard_spec>(parse_shard(*flags.shard)) : std::nullopt;
}

std::vector<std::size_t> selected_indices(const state_plan& plan,
                                          const std::optional<shard_spec>& shard) {
  if (shard) {
    return shard_indices(plan.states.size(), *shard);
  }
  std::vector<std::size_t> all(plan.states.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    all[i] = i;
  }
  return all;
}

} // namespace kerntime::detail
