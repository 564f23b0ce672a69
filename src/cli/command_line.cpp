#include "cli/command_line.hpp"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <ostream>

#include "cli/ab_command.hpp"
#include "cli/calibrate_command.hpp"
#include "cli/compare_command.hpp"
#include "cli/device_listing.hpp"
#include "cli/history_command.hpp"
#include "cli/input_text.hpp"
#include "cli/list_command.hpp"
#include "cli/merge_command.hpp"
#include "cli/parse_errors.hpp"
#include "cli/report_command.hpp"
#include "cli/run_command.hpp"
#include "cli/state_selection.hpp"
#include "cli/value_checks.hpp"
#include "supervise/exit_codes.hpp"

namespace kerntime::detail {

namespace fs = std::filesystem;

int run_command_line(const std::vector<std::string>& args, const benchmark_registry& registry,
                     const cli_environment& env) {
  auto& out = *env.out;
  auto& err = *env.err;

  // The program's own name in --help ("Usage: my_benchmarks"): any program linking kerntime_main
  // is this command line.
  const std::string program =
      args.empty() || args[0].empty() ? "kerntime" : fs::path(args[0]).filename().string();
  CLI::App app{"kerntime measures how long CUDA work really takes on the GPU: pure kernel time "
               "from CUPTI, on a cold L2, per kernel.",
               program};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("kerntime ") + KERNTIME_VERSION,
                       "Print kerntime's version and exit");
  app.set_help_all_flag("--help-all", "Show the options of every command");
  selection_flags run_selection;
  selection_flags list_selection;
  run_flags flags;
  auto* run = app.add_subcommand("run", "Measure the registered benchmarks (all by default)");
  add_selection_options(*run, run_selection);
  add_run_options(*run, flags);
  auto* list = app.add_subcommand("list", "List the benchmarks, their axes and their states");
  add_selection_options(*list, list_selection);
  std::optional<std::string> list_json;
  list->add_option("--json", list_json,
                   "Write the plan as JSON (plan index, state, benchmark) to this file, or - for "
                   "stdout")
      ->expected(0, 1)
      ->default_str("-");
  auto* info = app.add_subcommand("info", "Show the CUDA devices and whether CUPTI is usable");
  compare_flags compare_settings;
  merge_flags merge_settings;
  ab_flags ab_settings;
  calibrate_flags calibrate_settings;
  report_flags report_settings;
  history_flags history_settings;
  const CLI::App* compare = add_compare_command(app, compare_settings);
  const CLI::App* merge = add_merge_command(app, merge_settings);
  const CLI::App* ab = add_ab_command(app, ab_settings);
  const CLI::App* calibrate = add_calibrate_command(app, calibrate_settings);
  const CLI::App* report = add_report_command(app, report_settings);
  const history_commands history = add_history_command(app, history_settings);
  check_every_value(app);

  if (const auto done = parse_or_explain(app, args, program, out, err)) {
    return *done;
  }

  try {
    if (*info) {
      return print_device_listing(out, err);
    }
    if (*list) {
      const auto shard = shard_of(list_selection);
      const auto plan = make_plan(registry, list_selection);
      if (list->count("--json") > 0) {
        return list_plan_json(plan, shard, list_json.value_or("-"), out);
      }
      return list_states(plan, shard, out);
    }
    if (*compare) {
      return run_compare(compare_settings, env);
    }
    if (*merge) {
      return run_merge(merge_settings, args, env);
    }
    if (*ab) {
      return run_ab_command(*ab, ab_settings, args, env);
    }
    if (*calibrate) {
      return run_calibrate(calibrate_settings, args, env);
    }
    if (*report) {
      return run_report(report_settings, env);
    }
    if (*history.history) {
      return run_history(history, history_settings, args, env);
    }
    return run_measurements(*run, flags, run_selection, registry, args, env);
  } catch (const invalid_argument& e) {
    err << "kerntime: error: " << message_line(e.what()) << '\n';
    return exit_bad_input;
  }
}

} // namespace kerntime::detail
