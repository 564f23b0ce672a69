#include "cli/command_line.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <map>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/ab_command.hpp"
#include "cli/calibrate_command.hpp"
#include "cli/compare_command.hpp"
#include "cli/counter_check.hpp"
#include "cli/counter_phase.hpp"
#include "cli/device_listing.hpp"
#include "cli/device_selection.hpp"
#include "cli/exit_codes.hpp"
#include "cli/history_command.hpp"
#include "cli/input_text.hpp"
#include "cli/launch_choice.hpp"
#include "cli/merge_command.hpp"
#include "cli/output_paths.hpp"
#include "cli/protocol_flags.hpp"
#include "cli/report_command.hpp"
#include "cli/report_files.hpp"
#include "cli/roofline_flags.hpp"
#include "cli/run_context.hpp"
#include "cli/state_plan.hpp"
#include "cli/state_runner.hpp"
#include "cli/supervised_run.hpp"
#include "cli/value_checks.hpp"
#include "cli/worker_loop.hpp"
#include "kerntime/compare.hpp"
#include "kerntime/report.hpp"
#include "report/runs_speed_of_light.hpp"
#include "supervise/plan_listing.hpp"
#include "supervise/shard.hpp"
#include "supervise/worker_process.hpp"

namespace kerntime::detail {
namespace {

namespace fs = std::filesystem;

// What `list` and `run` select.
struct selection_flags {
  std::optional<std::string> filter;
  std::vector<std::string> axis_specs;
  std::optional<std::string> shard; // "INDEX/COUNT"
};

// The run command's flags: the protocol as typed, then the report files.
struct run_flags {
  protocol_request protocol;
  // Typed as text, read after parsing: a count, or "auto"; the stopping rule's numbers, which
  // count only when given.
  std::string warmup = std::to_string(protocol_request{}.warmup);
  double stop_at_ci = 0;
  long long max_trials = 0;
  double max_time_s = 0;
  std::optional<std::string> cuda_graph; // given: "" (the flag alone), on, off or both
  report_file_flags reports;
  roofline_flags roofline;                // --peaks, --calibration
  std::string baseline;                   // compare the run with this kerntime JSON
  std::string on_clock_mismatch = "warn"; // --on-clock-mismatch, with --baseline
  std::optional<history_target> history;  // --store: the run is added to this history
  bool quiet = false;
  // How the states run: worker processes (on these devices), or this process.
  std::optional<std::string> devices;
  double state_timeout_s = 600;
  bool no_isolation = false;
};

constexpr const setting_names& flag_names = protocol_flag_names;

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

std::string flag(std::string_view name) {
  return std::string(name);
}

void add_run_options(CLI::App& run, run_flags& flags, long long& flush_bytes) {
  auto& p = flags.protocol;
  const auto& n = flag_names;
  run.add_option(flag(n.warmup), flags.warmup,
                 "Untimed iterations before measuring, or auto: after that many, go on until the "
                 "iteration time has settled")
      ->capture_default_str();
  run.add_option(flag(n.trials), p.trials,
                 "Independent groups of measured iterations (with --stop-at-ci: the minimum)")
      ->capture_default_str();
  run.add_option(flag(n.stop_at_ci), flags.stop_at_ci,
                 "Add trials until the 95 % interval of the median is within ±P % of it, e.g. "
                 "0.5 (bounded by --max-trials and --max-time)");
  run.add_option(flag(n.max_trials), flags.max_trials,
                 "With --stop-at-ci: the most trials (default 100, or --trials if higher)");
  run.add_option(flag(n.max_time), flags.max_time_s,
                 "With --stop-at-ci: seconds after which no trial starts (default 30)");
  run.add_option(flag(n.repeats), p.repeats, "Measured iterations per trial")
      ->capture_default_str();
  run.add_option(flag(n.input_sets), p.input_sets,
                 "Input copies the work rotates over, so iterations see different addresses")
      ->capture_default_str();
  run.add_flag_callback(
      flag(n.no_flush), [&p] { p.flush_l2 = false; },
      "Do not flush the L2 before each iteration (hot-cache numbers)");
  run.add_option(
      flag(n.flush_bytes), flush_bytes,
      "Size of the L2 flush's buffer, one load per 128-byte line of it (default: 4 x L2)");
  run.add_option(flag(n.backend), p.backend,
                 "Timer: auto (CUPTI, else CUDA events), cupti (fail without it) or events")
      ->capture_default_str();
  run.add_option(flag(n.metric), p.metric,
                 "Headline per iteration: span (first start to last end) or busy (sum of GPU "
                 "activity)")
      ->capture_default_str();
  run.add_option("--cuda-graph", flags.cuda_graph,
                 "Capture the work once per input set into a CUDA graph and launch the graph "
                 "each iteration (the flush stays outside it); both: measure every state both "
                 "ways, as STATE/launch=stream and STATE/launch=graph")
      ->expected(0, 1)
      ->type_name("[on|off|both]");
  run.add_flag_callback(
      flag(n.no_telemetry), [&p] { p.telemetry = false; }, "Do not read NVML or the on-GPU clock");
  run.add_option(flag(n.throttle_threshold), p.throttle_threshold,
                 "Flag a trial as throttled when the SM clock measured on the GPU during it is "
                 "below this fraction of the maximum SM clock (0.9 = 90 %); NVML's clock-event "
                 "reasons are reported beside it, never as the verdict")
      ->capture_default_str();
  run.add_flag(flag(n.discard_throttled), p.discard_throttled,
               "Re-run throttled trials after a short pause (at most 3 re-runs in all)");
  run.add_flag(flag(n.counters), p.counters,
               "After each state's timing trials, profile one flushed iteration with CUPTI's "
               "range profiler: DRAM bytes, DRAM %, L2 hit rate and tensor-pipe % per kernel "
               "(docs/counters.md); timing is unchanged");
  run.add_option(flag(n.metrics), p.metrics,
                 "With --counters: these CUPTI metrics of this GPU's chip instead of the default "
                 "set, comma-separated (e.g. dram__bytes_read.sum,sm__throughput.avg.pct_of_peak_"
                 "sustained_elapsed); implies --counters; unknown names exit 2")
      ->delimiter(',');
  add_report_file_options(run, flags.reports);
  add_roofline_options(run, flags.roofline);
  run.add_option("--baseline", flags.baseline,
                 "Compare the run with this kerntime JSON and exit 1 if a state got slower "
                 "(kerntime compare's rules, docs/compare.md); its times also order the queue, "
                 "longest first");
  add_clock_mismatch_option(run, flags.on_clock_mismatch);
  flags.history.emplace();
  run.add_option("--store", flags.history->store,
                 "Add the run to this history store (a SQLite file, or postgresql://…; kerntime "
                 "history shows it and finds changes), with --commit, --branch, --label");
  add_run_label_options(run, *flags.history);
  run.add_option("--devices", flags.devices,
                 "Measure on these GPUs in parallel, one worker process each: all, or numbers "
                 "such as 0,2,3 (kerntime info lists them)");
  run.add_option("--state-timeout", flags.state_timeout_s,
                 "Seconds a state may run before its worker is killed and the state recorded as "
                 "timed_out")
      ->capture_default_str();
  run.add_flag("--no-isolation", flags.no_isolation,
               "Run the states in this process, not in a worker (for debuggers); a CUDA fault "
               "then fails every later state");
  run.add_flag("-q,--quiet", flags.quiet, "No markdown on stdout");
}

// The settings CLI11 holds as text or as "given or not" become the protocol request.
void read_typed_settings(const CLI::App& run, run_flags& flags) {
  auto& p = flags.protocol;
  read_warmup_flag(flags.warmup, p);
  if (run.count(flag(flag_names.stop_at_ci)) > 0) {
    p.stop_at_ci = flags.stop_at_ci;
  }
  if (run.count(flag(flag_names.max_trials)) > 0) {
    p.max_trials = flags.max_trials;
  }
  if (run.count(flag(flag_names.max_time)) > 0) {
    p.max_time_s = flags.max_time_s;
  }
}

state_plan make_plan(const benchmark_registry& registry, const selection_flags& flags) {
  std::vector<axis_override> overrides;
  for (const auto& spec : flags.axis_specs) {
    overrides.push_back(parse_axis_override(spec));
  }
  return plan_states(registry, overrides, flags.filter);
}

std::string axis_values_text(const axis& a) {
  std::vector<std::string> values;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a.power_of_two()) {
      values.push_back(fmt::format(
          "2^{} = {}", std::countr_zero(static_cast<std::uint64_t>(a.ints()[i])), a.ints()[i]));
    } else {
      values.push_back(a.value_text(i));
    }
  }
  std::string text;
  for (const auto& v : values) {
    text += text.empty() ? v : ", " + v;
  }
  return text;
}

// The plan indices a command covers: all, or its shard's.
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

int list_states(const state_plan& plan, const std::optional<shard_spec>& shard, std::ostream& out) {
  const auto indices = selected_indices(plan, shard);
  std::vector<bool> selected(plan.states.size(), false);
  for (const auto i : indices) {
    selected[i] = true;
  }
  for (const auto& b : plan.benchmarks) {
    out << b.registered->name() << '\n';
    for (const auto& a : b.axes) {
      out << fmt::format("  axis {} ({}{}): {}\n", a.name, to_string(a.kind()),
                         a.power_of_two() ? ", powers of two" : "", axis_values_text(a));
    }
    for (std::size_t i = 0; i < plan.states.size(); ++i) {
      if (selected[i] && plan.states[i].registered == b.registered) {
        out << "  state " << plan.states[i].name << '\n';
      }
    }
  }
  if (shard) {
    out << fmt::format("{} benchmarks, {} states; shard {}/{} holds {}\n", plan.benchmarks.size(),
                       plan.states.size(), shard->index, shard->count, indices.size());
  } else {
    out << fmt::format("{} benchmarks, {} states\n", plan.benchmarks.size(), plan.states.size());
  }
  return exit_ok;
}

std::optional<shard_spec> shard_of(const selection_flags& flags) {
  return flags.shard ? std::optional<shard_spec>(parse_shard(*flags.shard)) : std::nullopt;
}

// `list --json [FILE]`: the plan (or the shard's slice of it) for scripts.
int list_plan_json(const state_plan& plan, const std::optional<shard_spec>& shard,
                   const std::string& path, std::ostream& out) {
  plan_listing listing;
  listing.kerntime_version = KERNTIME_VERSION;
  listing.shard = shard;
  listing.plan_states = plan.states.size();
  for (const auto i : selected_indices(plan, shard)) {
    const auto& s = plan.states[i];
    listing.states.push_back({i, s.name, s.registered->name()});
  }
  if (path.empty() || path == "-") {
    out << plan_to_json(listing);
  } else {
    check_output_paths({{"--json", path}});
    write_file_atomically(path, [&](std::ostream& file) { file << plan_to_json(listing); });
  }
  return exit_ok;
}

std::string worker_start_summary(const supervision_summary& summary) {
  double total = 0;
  for (const double s : summary.worker_ready_seconds) {
    total += s;
  }
  return fmt::format("{} worker process{} ({:.2f} s to start in all), {} fault{}",
                     summary.workers_started, summary.workers_started == 1 ? "" : "es", total,
                     summary.faults, summary.faults == 1 ? "" : "s");
}

std::vector<benchmark_run>
measure_states_once(const std::vector<std::string>& args, const state_plan& plan,
                    const std::vector<std::size_t>& indices, const protocol& p,
                    const run_flags& flags, const std::vector<result_set>& earlier,
                    const cli_environment& env, std::optional<counter_phase> phase) {
  auto& err = *env.err;
  std::ostream* progress = env.err_is_terminal ? &err : nullptr;
  if (flags.no_isolation || env.worker_program.empty()) {
    return run_states(plan.states, indices, p, read_run_device(0), progress);
  }
  supervision_request request;
  request.program = env.worker_program;
  request.args = args;
  request.state_timeout_s = flags.state_timeout_s;
  request.earlier = earlier;
  if (phase) {
    request.environment.emplace_back(counter_phase_variable, std::string(to_string(*phase)));
  }
  if (flags.devices) {
    request.devices = parse_devices(*flags.devices, count_devices());
  }
  supervision_summary summary;
  auto runs = run_supervised(plan.states, indices, request, progress, err, summary);
  err << "kerntime: " << worker_start_summary(summary) << '\n';
  return runs;
}

// With --counters: every state timed first (as without counters), then the counter pass of each
// state that measured (cli/counter_phase.hpp).
std::vector<benchmark_run>
measure_states(const std::vector<std::string>& args, const state_plan& plan,
               const std::vector<std::size_t>& indices, const protocol& p, const run_flags& flags,
               const std::vector<result_set>& earlier, const cli_environment& env) {
  if (!p.counters || p.counters_only) {
    return measure_states_once(args, plan, indices, p, flags, earlier, env, std::nullopt);
  }
  auto runs = measure_states_once(args, plan, indices, protocol_for_phase(p, counter_phase::timing),
                                  flags, earlier, env, counter_phase::timing);
  std::vector<std::size_t> measured;
  for (const auto& run : runs) {
    if (run.status == run_status::ok && run.plan_index) {
      measured.push_back(*run.plan_index);
    }
  }
  if (!measured.empty()) {
    *env.err << fmt::format("kerntime: counters: the counter pass of {} state{}\n", measured.size(),
                            measured.size() == 1 ? "" : "s");
    const auto counted =
        measure_states_once(args, plan, measured, protocol_for_phase(p, counter_phase::counters),
                            flags, {}, env, counter_phase::counters);
    merge_counter_phase(runs, counted, p);
  }
  return runs;
}

int run_benchmarks(const std::vector<std::string>& args, const state_plan& plan, const protocol& p,
                   const run_flags& flags, const std::optional<shard_spec>& shard,
                   const cli_environment& env) {
  auto& out = *env.out;
  auto& err = *env.err;
  std::vector<input_path> inputs;
  for (const auto& [role, path] :
       {std::pair{"the baseline", &flags.baseline},
        std::pair{"the peaks file", &flags.roofline.peaks},
        std::pair{"the calibration file", &flags.roofline.calibration}}) {
    if (!path->empty()) {
      inputs.push_back({role, *path});
    }
  }
  const report_plan reports = plan_report_files(flags.reports, inputs);
  const clock_mismatch_rule clock_mismatch_rule_of_run =
      clock_mismatch_flag(flags.on_clock_mismatch);
  const roofline_settings roofline = load_roofline_settings(flags.roofline);
  // Read before running: a baseline that cannot be read must not cost a whole run.
  std::vector<result_set> baseline;
  if (!flags.baseline.empty()) {
    baseline.push_back(read_result_set(flags.baseline, {.trace = false}));
  }
  if (flags.devices && flags.no_isolation) {
    throw invalid_argument("--devices runs a worker process per GPU and --no-isolation runs "
                           "everything in this process: drop one of them");
  }
  if (flags.devices) { // bad input before anything starts, and before a missing GPU (exit 3)
    const int count = count_devices();
    (void)parse_devices(*flags.devices, count > 0 ? count : unknown_device_count);
  }
  if (flags.history) { // a store that cannot be used must not cost a whole run
    check_history_target(*flags.history);
  }
  if (auto problem = env.find_device_problem()) {
    err << "kerntime: " << *problem << '\n';
    return exit_no_device;
  }
  if (p.counters) {
    announce_counters(p, flags.devices, err); // unknown metrics: invalid_argument, exit 2
  }

  const auto indices = selected_indices(plan, shard);
  auto runs = measure_states(args, plan, indices, p, flags, baseline, env);
  add_speed_of_light(runs, roofline);
  auto context = make_run_context(args, runs);
  context.shard = shard;
  context.plan_states = plan.states.size();
  if (!flags.quiet) {
    make_markdown_writer()->print(out, context, runs);
    out << std::flush;
  }
  // Compared before the files are written, so the HTML shows the ratios; a comparison compare
  // refuses (another GPU model) is reported after them, so the run's files are not lost to it.
  const std::vector<result_set> measured{{context, runs}};
  std::optional<comparison> compared;
  std::exception_ptr refused;
  if (!baseline.empty()) {
    try {
      compare_options options;
      options.on_clock_mismatch = clock_mismatch_rule_of_run;
      compared = compare(baseline, measured, options);
    } catch (const invalid_argument&) {
      refused = std::current_exception();
    }
  }
  int exit_code = write_report_files(reports, context, runs, err, compared ? &*compared : nullptr)
                      ? exit_ok
                      : exit_benchmark_failed;
  const auto failed = std::count_if(runs.begin(), runs.end(), [](const benchmark_run& r) {
    return r.status == run_status::failed;
  });
  if (failed > 0) {
    for (const auto& r : runs) {
      if (r.status == run_status::failed && flags.quiet) {
        err << "kerntime: " << r.state_name << " failed: " << message_line(r.message) << '\n';
      }
    }
    err << fmt::format("kerntime: {} of {} states failed\n", failed, runs.size());
    exit_code = exit_benchmark_failed;
  }
  if (flags.history) {
    try {
      const auto id = add_to_history(*flags.history, {context, runs}, "kerntime run");
      err << fmt::format("kerntime: added to the history store {} as run {}\n",
                         flags.history->store, id);
    } catch (const invalid_argument& e) {
      err << "kerntime: the run was not added to the history: " << message_line(e.what())
          << "; its results are in the files written above (add one later with kerntime history "
             "add FILE)\n";
      exit_code = exit_benchmark_failed;
    }
  }
  if (refused) {
    std::rethrow_exception(refused);
  }
  if (compared) {
    const comparison& c = *compared;
    if (!flags.quiet) {
      out << '\n' << comparison_markdown(c) << std::flush;
    }
    if (const std::string advice = clock_mismatch_advice(c); !advice.empty()) {
      err << "kerntime: " << advice << '\n';
    }
    if (has_regression(c)) {
      err << "kerntime: a state got slower than in " << flags.baseline << " (listed first)\n";
      exit_code = exit_code == exit_ok ? exit_regression : exit_code;
    }
  }
  return exit_code;
}

// "run, list, info, compare, merge, ab, calibrate and report": every command, in --help's order.
std::string command_names(CLI::App& app) {
  std::vector<std::string> names;
  for (const auto* command : app.get_subcommands({})) {
    names.push_back(command->get_name());
  }
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return text;
}

} // namespace

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
  long long flush_bytes = 0;
  auto* run = app.add_subcommand("run", "Measure the registered benchmarks (all by default)");
  add_selection_options(*run, run_selection);
  add_run_options(*run, flags, flush_bytes);
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
  auto* compare = app.add_subcommand(
      "compare", "Compare two runs' results per state (exit 1 when something got slower)");
  add_compare_options(*compare, compare_settings);
  merge_flags merge_settings;
  auto* merge = app.add_subcommand(
      "merge", "Join the result files of a sharded run (run --shard) into one set of reports");
  add_merge_options(*merge, merge_settings);
  ab_flags ab_settings;
  auto* ab = app.add_subcommand(
      "ab", "Is B faster than A? Two programs' trials interleaved on one GPU, each state decided "
            "as soon as it is sure (exit 1 when one got slower)");
  add_ab_options(*ab, ab_settings);
  calibrate_flags calibrate_settings;
  auto* calibrate = app.add_subcommand(
      "calibrate", "Measure what this GPU achieves now (copy, a GEMM per precision) for run "
                   "--calibration");
  add_calibrate_options(*calibrate, calibrate_settings);
  report_flags report_settings;
  auto* report = app.add_subcommand(
      "report", "Render a kerntime JSON again: HTML, JUnit, CSV, … (with --baseline, compared)");
  add_report_options(*report, report_settings);
  history_flags history_settings;
  auto* history = app.add_subcommand(
      "history", "Keep runs in a store and find which commit made a state slower (add, show, "
                 "changes, baseline)");
  const history_commands history_subcommands = add_history_options(*history, history_settings);
  check_every_value(app);

  std::vector<const char*> argv;
  argv.reserve(args.size());
  for (const auto& a : args) {
    argv.push_back(a.c_str());
  }
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::RequiredError& e) {
    if (app.get_subcommands().empty()) {
      const bool named = args.size() > 1 && !args[1].empty() && args[1].front() != '-';
      err << "kerntime: error: "
          << (named ? message_line(quoted_input(args[1]) + " is not a kerntime command")
                    : std::string("a command is required"))
          << "; the commands are " << command_names(app) << " (" << program
          << " --help explains them)\n";
    } else {
      err << "kerntime: error: " << message_line(e.what()) << "; see kerntime --help\n";
    }
    return exit_bad_input;
  } catch (const CLI::ExtrasError&) {
    // CLI11 lists the extras in reverse; name them in the order they were typed.
    const auto subcommands = app.get_subcommands();
    const std::string command = subcommands.empty() ? "kerntime" : subcommands.front()->get_name();
    err << "kerntime: error: "
        << message_line(
               fmt::format("{} does not take {}", command,
                           quoted_input(fmt::format("{}", fmt::join(app.remaining(true), " ")))))
        << "; see kerntime " << (subcommands.empty() ? "" : command + " ") << "--help\n";
    return exit_bad_input;
  } catch (const CLI::ParseError& e) {
    err << "kerntime: error: " << message_line(e.what()) << "; see kerntime --help or kerntime run "
        << "--help\n";
    return exit_bad_input;
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
    if (*history) {
      return run_history(history_subcommands, history_settings, args, env);
    }
    if (run->count("--store") == 0) {
      if (run->count("--commit") + run->count("--branch") + run->count("--label") > 0) {
        throw invalid_argument("--commit, --branch and --label say what the run is in the "
                               "history: give the store too (--store history.sqlite)");
      }
      flags.history.reset();
    }
    if (run->count(flag(flag_names.flush_bytes)) > 0) {
      flags.protocol.flush_bytes = flush_bytes;
    }
    read_typed_settings(*run, flags);
    const launch_choice launches =
        flags.cuda_graph ? parse_launch_choice(*flags.cuda_graph) : launch_choice::stream;
    flags.protocol.cuda_graph = launches == launch_choice::graph;
    const protocol p = parse_protocol(flags.protocol, flag_names);
    const auto shard = shard_of(run_selection);
    if (!(flags.state_timeout_s > 0)) {
      throw invalid_argument(fmt::format("--state-timeout {:g}: give a number of seconds above 0, "
                                         "e.g. --state-timeout 600",
                                         flags.state_timeout_s));
    }
    const state_plan plan = launches == launch_choice::both
                                ? split_by_launch(make_plan(registry, run_selection))
                                : make_plan(registry, run_selection);
    if (const char* channel = std::getenv(worker_channel_variable)) {
      const std::string text = channel;
      ::unsetenv(worker_channel_variable); // not for the benchmarks' own child processes
      return serve_as_worker(text, plan.states, p, env);
    }
    return run_benchmarks(args, plan, p, flags, shard, env);
  } catch (const invalid_argument& e) {
    err << "kerntime: error: " << message_line(e.what()) << '\n';
    return exit_bad_input;
  }
}

} // namespace kerntime::detail
