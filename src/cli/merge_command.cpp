#include "cli/merge_command.hpp"

#include <algorithm>
#include <ostream>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "cli/run_context.hpp"
#include "report/detail/gzip_file.hpp"
#include "result/message_words.hpp"
#include "supervise/exit_codes.hpp"
#include "supervise/shard_merge.hpp"

namespace kerntime::detail {
namespace {

// The whole file, plain or gzip-compressed.
std::string read_text(const std::string& path) {
  detail::line_reader file(path);
  return file.rest();
}

std::vector<input_path> merged_inputs(const merge_flags& flags) {
  std::vector<input_path> inputs;
  inputs.reserve(flags.inputs.size());
  for (const auto& path : flags.inputs) {
    inputs.push_back({"a file to merge", path});
  }
  return inputs;
}

int merge_plan_files(const std::vector<std::pair<std::string, std::string>>& texts,
                     const merge_flags& flags, const merge_options& options,
                     const cli_environment& env) {
  std::vector<named_input<plan_listing>> plans;
  for (const auto& [path, text] : texts) {
    plans.push_back({path, parse_plan(text, path)});
  }
  const auto& files = flags.reports.files;
  for (const auto& [flag, path] : files) {
    if (flag != "--json" && !path.empty()) {
      throw invalid_argument(fmt::format("{}: plans merge into a plan, which only --json writes; "
                                         "merge the shards' results for other reports",
                                         flag));
    }
  }
  const auto json = files.find("--json");
  if (json != files.end() && !json->second.empty()) {
    check_output_paths({{"--json", json->second}}, merged_inputs(flags));
  }
  const plan_listing merged = merge_plans(plans, options);
  if (json != files.end() && !json->second.empty()) {
    write_file_atomically(json->second, [&](std::ostream& out) { out << plan_to_json(merged); });
  } else if (!flags.quiet) {
    *env.out << plan_to_json(merged);
  }
  return exit_ok;
}

} // namespace

CLI::App* add_merge_command(CLI::App& app, merge_flags& flags) {
  CLI::App& merge = *app.add_subcommand(
      "merge", "Join the result files of a sharded run (run --shard) into one set of reports");
  merge
      .add_option("files", flags.inputs,
                  "The shards' kerntime JSON files (or the plans of kerntime list --json)")
      ->required();
  add_report_file_options(merge, flags.reports);
  merge.add_flag("--allow-partial", flags.allow_partial,
                 "Merge although some shards are missing (they are named on stderr)");
  merge.add_flag("-q,--quiet", flags.quiet, "No markdown on stdout");
  return &merge;
}

int run_merge(const merge_flags& flags, const std::vector<std::string>& args,
              const cli_environment& env) {
  std::vector<std::pair<std::string, std::string>> texts;
  for (const auto& path : flags.inputs) {
    texts.emplace_back(path, read_text(path));
  }
  const merge_options options{.allow_partial = flags.allow_partial,
                              .command_line = command_line_text(args)};
  const auto plans = std::count_if(texts.begin(), texts.end(),
                                   [](const auto& t) { return looks_like_plan(t.second); });
  if (plans > 0 && plans < static_cast<std::ptrdiff_t>(texts.size())) {
    throw invalid_argument("some files are plans (kerntime list --json) and some are results: "
                           "merge plans with plans, results with results");
  }
  if (plans > 0) {
    return merge_plan_files(texts, flags, options, env);
  }
  const report_plan reports = plan_report_files(flags.reports, merged_inputs(flags));
  std::vector<named_input<result_set>> sets;
  for (auto& [path, text] : texts) {
    sets.push_back({path, parse_result_set(text, path)});
    std::string().swap(text); // read: its memory goes back before the next file is parsed
  }
  const result_set merged = merge_result_sets(std::move(sets), options);
  if (!flags.quiet) {
    make_markdown_writer()->print(*env.out, merged.context, merged.runs);
    *env.out << std::flush;
  }
  int exit_code = write_report_files(reports, merged.context, merged.runs, *env.err)
                      ? exit_ok
                      : exit_benchmark_failed;
  std::set<std::string> missing_shards;
  std::size_t missing_states = 0;
  for (const auto& run : merged.runs) {
    // The records a partial merge wrote (shard_merge.cpp), not a user's benchmark of that name.
    const bool placeholder = run.benchmark == missing_shard_benchmark &&
                             run.status == run_status::skipped && run.axes.size() == 2 &&
                             run.axes[0].first == "shard" &&
                             run.axes[0].second.find("of") != std::string::npos;
    if (placeholder) {
      ++missing_states;
      missing_shards.insert(run.axes[0].second);
    }
  }
  if (missing_states > 0) {
    std::string shards;
    for (std::string shard : missing_shards) { // "1of4" as "1/4"
      shard.replace(shard.find("of"), 2, "/");
      shards += (shards.empty() ? "" : ", ") + shard;
    }
    *env.err << fmt::format("kerntime: a partial merge: shard{} {} {} missing; {} of the plan's {} "
                            "states were not measured and are written as skipped in every "
                            "report\n",
                            missing_shards.size() == 1 ? "" : "s", shards,
                            missing_shards.size() == 1 ? "is" : "are", missing_states,
                            merged.context.plan_states.value_or(merged.runs.size()));
  }
  const auto failed =
      std::count_if(merged.runs.begin(), merged.runs.end(),
                    [](const benchmark_run& r) { return r.status == run_status::failed; });
  if (failed > 0) {
    *env.err << fmt::format("kerntime: {} of {} failed\n", failed,
                            counted(merged.runs.size(), "state"));
    exit_code = exit_benchmark_failed;
  }
  return exit_code;
}

} // namespace kerntime::detail
