#include "cli/run_command.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <future>
#include <map>
#include <numeric>
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
#include "cli/history_command.hpp"
#include "cli/input_text.hpp"
#include "cli/launch_choice.hpp"
#include "cli/merge_command.hpp"
#include "cli/output_paths.hpp"
#include "cli/preparations.hpp"
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
#include "result/message_words.hpp"
#include "supervise/exit_codes.hpp"
#include "supervise/plan_listing.hpp"
#include "supervise/shard.hpp"
#include "supervise/worker_process.hpp"

namespace kerntime::detail {
namespace {

constexpr const setting_names& flag_names = protocol_flag_names;

// The settings CLI11 holds as text or as "given or not" become the protocol request.
void read_typed_settings(const CLI::App& run, run_flags& flags) {
  read_trial_protocol(run, flags.trial);
  auto& p = flags.trial.protocol;
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

std::string worker_start_summary(const supervision_summary& summary) {
  return fmt::format(
      "{} worker process{} ({:.2f} s to start, {:.2f} s to exit, in all), {} fault{}",
      summary.workers_started, summary.workers_started == 1 ? "" : "es",
      std::accumulate(summary.worker_ready_seconds.begin(), summary.worker_ready_seconds.end(),
                      0.0),
      std::accumulate(summary.worker_exit_seconds.begin(), summary.worker_exit_seconds.end(), 0.0),
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
    return run_states(plan.states, indices, p, read_run_device(0), progress, !flags.no_session,
                      preparations_of(flags, p));
  }
  supervision_request request;
  request.program = env.worker_program;
  request.args = args;
  request.state_timeout_s = flags.workers.state_timeout_s;
  request.earlier = earlier;
  if (phase) {
    request.environment.emplace_back(counter_phase_variable, std::string(to_string(*phase)));
  }
  if (flags.workers.devices) {
    request.devices = parse_devices(*flags.workers.devices, count_devices());
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
  if (flags.workers.devices && flags.no_isolation) {
    throw invalid_argument("--devices runs a worker process per GPU and --no-isolation runs "
                           "everything in this process: drop one of them");
  }
  check_worker_flags(flags.workers);
  if (flags.history) { // a store that cannot be used must not cost a whole run
    check_history_target(*flags.history);
  }
  // Workers initialise CUDA and make their own contexts. Before they start this process asks only
  // whether a driver loads (no GPU machine: the same line); its own device check, which
  // initialises CUDA (cuInit, ~0.1 s on an H100 host), runs beside the first worker's start
  // instead of before it, and names a GPU that is there but no worker could use (below). It is
  // kept: while another process holds CUDA initialised, a worker starts and exits faster (H100:
  // 180 against 300 ms, 50 against 100 ms; docs/queue.md, "The command's floor").
  const bool in_this_process = flags.no_isolation || env.worker_program.empty();
  if (auto problem = in_this_process ? env.find_device_problem() : env.find_driver_problem()) {
    err << "kerntime: " << *problem << '\n';
    return exit_no_device;
  }
  std::future<std::optional<std::string>> device_check;
  if (in_this_process) {
    if (auto problem = env.create_context()) {
      err << "kerntime: " << *problem << '\n';
      return exit_no_device;
    }
  } else {
    device_check = std::async(std::launch::async, env.find_device_problem);
  }
  if (p.counters) {
    announce_counters(p, flags.workers.devices, err); // unknown metrics: invalid_argument, exit 2
  }

  const auto indices = selected_indices(plan, shard);
  auto runs = measure_states(args, plan, indices, p, flags, baseline, env);
  // No worker could use its GPU (it exists but is held in exclusive mode, or broken): the run
  // measured nothing, as when no GPU is found.
  if (!runs.empty() && std::all_of(runs.begin(), runs.end(), [](const benchmark_run& r) {
        return r.status == run_status::failed && r.error == error_kind::device_unavailable;
      })) {
    const auto problem = device_check.valid() ? device_check.get() : std::nullopt;
    err << "kerntime: " << (problem ? *problem : message_line(runs.front().message)) << '\n';
    return exit_no_device;
  }
  for (const auto& line : add_speed_of_light(runs, roofline)) {
    err << "kerntime: " << line << '\n';
  }
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
    err << fmt::format("kerntime: {} of {} failed\n", failed, counted(runs.size(), "state"));
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

} // namespace

void add_run_options(CLI::App& run, run_flags& flags) {
  auto& p = flags.trial.protocol;
  const auto& n = flag_names;
  add_trial_protocol_options(run, flags.trial);
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
  run.add_option("--preparations", flags.preparations,
                 "Split each state's trials over this many fresh preparations (its inputs "
                 "allocated, warm-up, timer attached, one after the other), so the trials' spread "
                 "includes how far a preparation moves the state (preparation_spread in the JSON; "
                 "docs/ab.md); default: one per trial, 1 with --stop-at-ci")
      ->type_name("N");
  run.add_option("--cuda-graph", flags.cuda_graph,
                 "Capture the work once per input set into a CUDA graph and launch the graph "
                 "each iteration (the flush stays outside it); both: measure every state both "
                 "ways, as STATE/launch=stream and STATE/launch=graph")
      ->expected(0, 1)
      ->type_name("[on|off|both]");
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
  add_worker_options(run, flags.workers, {"one worker process", "a state", "timed_out"});
  run.add_flag("--no-isolation", flags.no_isolation,
               "Run the states in this process, not in a worker (for debuggers); a CUDA fault "
               "then fails every later state");
  run.add_flag("--no-session", flags.no_session,
               "Finalize CUPTI after every state instead of keeping it initialised (with the "
               "flush buffer) for all the states a process runs: each state then costs 8-12 ms "
               "more; for checking that keeping it changes no number");
  run.add_flag("-q,--quiet", flags.quiet, "No markdown on stdout");
}

int run_measurements(const CLI::App& run, run_flags& flags, const selection_flags& run_selection,
                     const benchmark_registry& registry, const std::vector<std::string>& args,
                     const cli_environment& env) {
  if (run.count("--store") == 0) {
    if (run.count("--commit") + run.count("--branch") + run.count("--label") > 0) {
      throw invalid_argument("--commit, --branch and --label say what the run is in the "
                             "history: give the store too (--store history.sqlite)");
    }
    flags.history.reset();
  }
  read_typed_settings(run, flags);
  const launch_choice launches =
      flags.cuda_graph ? parse_launch_choice(*flags.cuda_graph) : launch_choice::stream;
  flags.trial.protocol.cuda_graph = launches == launch_choice::graph;
  const protocol p = parse_protocol(flags.trial.protocol, flag_names);
  (void)preparations_of(flags, p); // refused here, before a worker starts
  const auto shard = shard_of(run_selection);
  const state_plan plan = launches == launch_choice::both
                              ? split_by_launch(make_plan(registry, run_selection))
                              : make_plan(registry, run_selection);
  if (const char* channel = std::getenv(worker_channel_variable)) {
    const std::string text = channel;
    ::unsetenv(worker_channel_variable); // not for the benchmarks' own child processes
    return serve_as_worker(text, plan.states, p, env, !flags.no_session, preparations_of(flags, p));
  }
  return run_benchmarks(args, plan, p, flags, shard, env);
}

} // namespace kerntime::detail
