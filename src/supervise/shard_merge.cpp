#include "supervise/shard_merge.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "kerntime/errors.hpp"

namespace kerntime::detail {
namespace {

// What every input says about where it comes from.
struct origin {
  std::string source;
  std::string version;
  std::optional<shard_spec> shard;
  std::optional<std::size_t> plan_states;
};

void check_versions(const std::vector<origin>& inputs) {
  for (const auto& in : inputs) {
    if (in.version != inputs.front().version) {
      throw invalid_argument(fmt::format(
          "{} was written by kerntime {} and {} by kerntime {}: merge only files of one kerntime "
          "version (run every shard with the same build)",
          inputs.front().source, inputs.front().version, in.source, in.version));
    }
  }
}

// Shards of one plan: all or none are shards, one count, one plan size, each index once, every
// index present unless a partial merge is asked for. Returns the missing shards (a partial merge).
std::vector<int> check_shards(const std::vector<origin>& inputs, bool allow_partial) {
  const auto first_shard =
      std::find_if(inputs.begin(), inputs.end(), [](const origin& o) { return o.shard; });
  if (first_shard == inputs.end()) {
    return {};
  }
  std::map<int, std::string> seen;
  for (const auto& in : inputs) {
    if (!in.shard) {
      throw invalid_argument(fmt::format("{} is shard {}/{} and {} is a whole run: merge the "
                                         "shards of one run only",
                                         first_shard->source, first_shard->shard->index,
                                         first_shard->shard->count, in.source));
    }
    if (in.shard->count != first_shard->shard->count ||
        in.plan_states != first_shard->plan_states) {
      throw invalid_argument(fmt::format(
          "{} is shard {}/{} of a plan of {} states and {} is shard {}/{} of {}: these are "
          "shards of different runs",
          first_shard->source, first_shard->shard->index, first_shard->shard->count,
          first_shard->plan_states.value_or(0), in.source, in.shard->index, in.shard->count,
          in.plan_states.value_or(0)));
    }
    const auto [where, fresh] = seen.emplace(in.shard->index, in.source);
    if (!fresh) {
      throw invalid_argument(fmt::format("{} and {} are both shard {}/{}: give each shard once",
                                         where->second, in.source, in.shard->index,
                                         in.shard->count));
    }
  }
  std::vector<int> missing;
  for (int i = 0; i < first_shard->shard->count; ++i) {
    if (!seen.contains(i)) {
      missing.push_back(i);
    }
  }
  if (!missing.empty() && !allow_partial) {
    std::string list;
    for (const int i : missing) {
      list += fmt::format("{}{}", list.empty() ? "" : ", ", i);
    }
    throw invalid_argument(fmt::format("shard{} {} of {} {} missing: merge every shard's file, "
                                       "or pass --allow-partial to merge what there is",
                                       missing.size() == 1 ? "" : "s", list,
                                       first_shard->shard->count,
                                       missing.size() == 1 ? "is" : "are"));
  }
  return missing;
}

// A partial merge holds a skipped record for each planned state of a missing shard, so every
// report shows the hole (JUnit: skipped tests, not a green run of fewer tests). The result files
// do not name the other shards' states: the record names the plan index and how to list them.
void add_missing_states(result_set& merged, const std::vector<int>& missing, int count) {
  const std::size_t states = merged.context.plan_states.value_or(0);
  for (const int shard : missing) {
    for (std::size_t i = static_cast<std::size_t>(shard); i < states;
         i += static_cast<std::size_t>(count)) {
      benchmark_run run;
      run.benchmark = std::string(missing_shard_benchmark);
      run.axes = {{"shard", fmt::format("{}of{}", shard, count)},
                  {"plan_index", std::to_string(i)}};
      run.state_name = make_state_name(run.benchmark, run.axes);
      run.status = run_status::skipped;
      run.message = fmt::format("shard {}/{} was not merged (--allow-partial): this planned state "
                                "was not measured in the merged files; kerntime list --shard {}/{} "
                                "names the shard's states",
                                shard, count, shard, count);
      run.plan_index = i;
      merged.runs.push_back(std::move(run));
    }
  }
}

template <typename Pointer, typename NameOf>
void check_unique(const std::vector<std::pair<std::string, Pointer>>& items, NameOf name_of) {
  std::map<std::string, std::string> first_seen;
  for (const auto& [source, item] : items) {
    const auto [where, fresh] = first_seen.emplace(name_of(*item), source);
    if (!fresh) {
      throw invalid_argument(fmt::format("state {} is in both {} and {}: a state belongs in one "
                                         "shard; merge each shard's file once",
                                         where->first, where->second, source));
    }
  }
}

} // namespace

result_set merge_result_sets(std::vector<named_input<result_set>> inputs,
                             const merge_options& options) {
  if (inputs.empty()) {
    throw invalid_argument("nothing to merge: give the result files of the shards");
  }
  std::vector<origin> origins;
  std::vector<std::pair<std::string, benchmark_run*>> runs;
  for (auto& in : inputs) {
    origins.push_back({in.source, in.content.context.kerntime_version, in.content.context.shard,
                       in.content.context.plan_states});
    for (auto& run : in.content.runs) {
      runs.emplace_back(in.source, &run);
    }
  }
  check_versions(origins);
  const std::vector<int> missing = check_shards(origins, options.allow_partial);
  check_unique(runs, [](const benchmark_run& r) { return r.state_name; });
  const bool indexed = std::all_of(runs.begin(), runs.end(),
                                   [](const auto& r) { return r.second->plan_index.has_value(); });
  if (indexed) {
    std::stable_sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) {
      return *a.second->plan_index < *b.second->plan_index;
    });
  }

  result_set merged;
  merged.context = inputs.front().content.context;
  merged.context.command_line = options.command_line;
  merged.context.shard.reset(); // it covers the shards it joins
  std::string hosts;
  for (const auto& in : inputs) {
    const auto& host = in.content.context.host_name;
    if (!host.empty() && hosts.find(host) == std::string::npos) {
      hosts += (hosts.empty() ? "" : ", ") + host;
    }
    if (!merged.context.device && in.content.context.device) {
      merged.context.device = in.content.context.device;
      merged.context.telemetry = in.content.context.telemetry;
    }
  }
  merged.context.host_name = hosts;
  merged.runs.reserve(runs.size());
  for (const auto& [source, run] : runs) {
    merged.runs.push_back(std::move(*run)); // the inputs are this function's own
  }
  if (!missing.empty()) {
    add_missing_states(merged, missing, inputs.front().content.context.shard->count);
    if (indexed) {
      std::stable_sort(merged.runs.begin(), merged.runs.end(),
                       [](const auto& a, const auto& b) { return *a.plan_index < *b.plan_index; });
    }
  }
  return merged;
}

plan_listing merge_plans(const std::vector<named_input<plan_listing>>& inputs,
                         const merge_options& options) {
  if (inputs.empty()) {
    throw invalid_argument("nothing to merge: give the plan files of the shards");
  }
  std::vector<origin> origins;
  std::vector<std::pair<std::string, const plan_entry*>> states;
  for (const auto& in : inputs) {
    origins.push_back(
        {in.source, in.content.kerntime_version, in.content.shard, in.content.plan_states});
    for (const auto& s : in.content.states) {
      states.emplace_back(in.source, &s);
    }
  }
  check_versions(origins);
  check_shards(origins, options.allow_partial);
  check_unique(states, [](const plan_entry& s) { return s.name; });
  std::stable_sort(states.begin(), states.end(), [](const auto& a, const auto& b) {
    return a.second->plan_index < b.second->plan_index;
  });
  plan_listing merged;
  merged.kerntime_version = inputs.front().content.kerntime_version;
  merged.plan_states = inputs.front().content.plan_states;
  for (const auto& [source, s] : states) {
    merged.states.push_back(*s);
  }
  return merged;
}

} // namespace kerntime::detail
