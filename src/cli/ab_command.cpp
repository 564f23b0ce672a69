#include "cli/ab_command.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <ostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/compare_command.hpp"
#include "cli/device_selection.hpp"
#include "cli/input_text.hpp"
#include "cli/output_paths.hpp"
#include "cli/protocol_flags.hpp"
#include "cli/report_files.hpp"
#include "cli/run_context.hpp"
#include "cli/supervised_run.hpp"
#include "cli/worker_loop.hpp"
#include "compare/ab_comparison.hpp"
#include "compare/pooled_result.hpp"
#include "compare/round_blocks.hpp"
#include "kerntime/compare.hpp"
#include "kerntime/errors.hpp"
#include "kerntime/statistics.hpp"
#include "result/message_words.hpp"
#include "supervise/ab_run.hpp"
#include "supervise/exit_codes.hpp"
#include "supervise/plan_listing.hpp"
#include "supervise/program_output.hpp"

namespace kerntime::detail {
namespace {

// The selection flags and the protocol flags given, as typed: what each worker's `run` gets.
const std::vector<std::string>& forwarded_options() {
  static const std::vector<std::string> names{"--filter",
                                              "--axis",
                                              "--warmup",
                                              "--repeat",
                                              "--input-sets",
                                              "--no-flush",
                                              "--flush-bytes",
                                              "--backend",
                                              "--metric",
                                              "--no-telemetry",
                                              "--throttle-threshold",
                                              "--discard-throttled",
                                              "--cuda-graph"};
  return names;
}

std::vector<std::string> forwarded_arguments(const CLI::App& ab, bool selection_only) {
  std::vector<std::string> args;
  for (const auto& name : forwarded_options()) {
    if (selection_only && name != "--filter" && name != "--axis") {
      continue;
    }
    const CLI::Option* option = ab.get_option(name);
    if (option->count() == 0) {
      continue;
    }
    if (option->get_expected_max() == 0) {
      args.push_back(name);
      continue;
    }
    for (const auto& value : option->results()) {
      args.push_back(name);
      args.push_back(value);
    }
  }
  return args;
}

// The protocol the flags describe, checked as `run` checks it.
void check_protocol(const CLI::App& ab, const ab_flags& flags) {
  trial_protocol_flags trial = flags.trial;
  read_trial_protocol(ab, trial);
  trial.protocol.trials = 1;
  (void)parse_protocol(trial.protocol, protocol_flag_names);
  const auto given = [&](const char* name) { return ab.get_option(name)->count() > 0; };
  if (given("--cuda-graph") && flags.cuda_graph != "on" && flags.cuda_graph != "off" &&
      !flags.cuda_graph.empty()) {
    throw invalid_argument(fmt::format(
        "kerntime ab takes --cuda-graph, --cuda-graph on or --cuda-graph off (got \"{}\"); to "
        "compare stream and graph launches, run ab once each way",
        flags.cuda_graph));
  }
}

std::string program_path(const std::string& given, const char* role) {
  std::string path = find_program(given);
  if (path.empty()) {
    throw invalid_argument(fmt::format("{} {} is neither a file nor a program on PATH; give the "
                                       "path of a kerntime program (e.g. ./build/my_benchmarks)",
                                       role, quoted_input(given)));
  }
  return path;
}

std::string first_line(const std::string& text) {
  const auto end = text.find('\n');
  return text.substr(0, end);
}

// The program's plan, from `PROGRAM list --json - [selection]`.
plan_listing plan_of(const std::string& path, const char* role,
                     const std::vector<std::string>& selection) {
  std::vector<std::string> argv{path, "list", "--json", "-"};
  argv.insert(argv.end(), selection.begin(), selection.end());
  constexpr double list_timeout_s = 120;
  const program_output listed = run_program(argv, list_timeout_s);
  const std::string refusal =
      fmt::format("{} {} is not a kerntime program: `{} list --json` {}; A and B must be kerntime "
                  "programs (the kerntime command, or a program linking kerntime::kerntime_main)",
                  role, path, path, "{}");
  if (listed.timed_out) {
    throw invalid_argument(fmt::format(fmt::runtime(refusal),
                                       fmt::format("did not answer in {:g} s", list_timeout_s)));
  }
  if (listed.too_much_output) {
    throw invalid_argument(fmt::format(
        fmt::runtime(refusal), fmt::format("printed more than {} MiB", max_output_bytes >> 20)));
  }
  if (listed.exit_code == exit_bad_input && listed.err.starts_with("kerntime:")) {
    // A kerntime program that refused the selection: its own message says why.
    throw invalid_argument(fmt::format("{} {} refused the selection: {}", role, path,
                                       message_line(first_line(listed.err))));
  }
  if (listed.exit_code != 0 || !looks_like_plan(listed.out)) {
    throw invalid_argument(fmt::format(
        fmt::runtime(refusal),
        fmt::format("{}{}", listed.exit_code != 0 ? "ended with " + listed.how : "printed no plan",
                    listed.err.empty() ? "" : ": " + message_line(first_line(listed.err)))));
  }
  return parse_plan(listed.out, fmt::format("the plan of {}", path));
}

struct matched_states {
  std::vector<ab_state> both;
  std::vector<std::string> only_a;
  std::vector<std::string> only_b;
};

matched_states match(const plan_listing& a, const plan_listing& b) {
  std::map<std::string, const plan_entry*> in_b;
  for (const auto& s : b.states) {
    in_b.emplace(s.name, &s);
  }
  matched_states m;
  for (const auto& s : a.states) {
    const auto found = in_b.find(s.name);
    if (found == in_b.end()) {
      m.only_a.push_back(s.name);
      continue;
    }
    m.both.push_back({s.name, s.benchmark, s.plan_index, found->second->plan_index});
    in_b.erase(found);
  }
  for (const auto& s : b.states) {
    if (in_b.contains(s.name)) {
      m.only_b.push_back(s.name);
    }
  }
  return m;
}

// One side's record of a state: its preparations pooled, or the failure when it had none.
benchmark_run side_record(const ab_state_outcome& o, const std::vector<benchmark_run>& trials,
                          bool failed_here) {
  benchmark_run run;
  if (!trials.empty()) {
    run = trials.front();
    std::vector<const measurement_result*> results;
    results.reserve(trials.size());
    double wall = 0;
    for (const auto& t : trials) {
      results.push_back(&*t.result);
      wall += t.wall_seconds;
    }
    run.result = pool_preparations(results);
    run.wall_seconds = wall;
  } else {
    run.benchmark = o.state.benchmark;
    run.state_name = o.state.name;
    run.device = o.device;
  }
  if (failed_here || trials.empty()) {
    run.status = o.skipped ? run_status::skipped : run_status::failed;
    run.error =
        o.skipped ? std::nullopt : std::optional(o.failure_kind.value_or(error_kind::other));
    run.message = o.failure.empty() ? "not measured" : o.failure;
    run.result.reset();
  }
  return run;
}

std::string decision_time_summary(const std::vector<ab_state_outcome>& outcomes, double wall) {
  std::vector<double> trials;
  std::vector<double> finished;
  for (const auto& o : outcomes) {
    if (o.comparison) {
      trials.push_back(o.seconds);
      finished.push_back(o.finished_after_s);
    }
  }
  if (trials.empty()) {
    return fmt::format("no state compared, {:.1f} s in all", wall);
  }
  const auto p90 = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return percentile(v, 0.9);
  };
  return fmt::format("{} state{} compared in {:.1f} s: a state's trials took {:.2f} s (median), "
                     "{:.2f} s (p90); it was settled {:.1f} s (median), {:.1f} s (p90) into the "
                     "run",
                     trials.size(), trials.size() == 1 ? "" : "s", wall, median(trials),
                     p90(trials), median(finished), p90(finished));
}

// `run` flags that have no place in an A/B run, and what to use instead.
const std::vector<std::pair<std::string, std::string>>& refused_run_flags() {
  static const std::vector<std::pair<std::string, std::string>> refused{
      {"--trials", "each preparation runs one trial and the confidence sequence decides how many; "
                   "bound them with --max-pairs or --max-time"},
      {"--stop-at-ci", "ab stops each state when B/A is decided against --threshold"},
      {"--max-trials", "bound the pairs of trials with --max-pairs"},
      {"--preparations", "every trial of ab is a fresh preparation already"},
      {"--counters", "profile the states with kerntime run --counters instead"},
      {"--metrics", "profile the states with kerntime run --counters instead"},
      {"--baseline", "ab compares its two programs; compare files with kerntime compare"},
      {"--shard", "select the states with --filter"},
      {"--no-isolation", "ab always runs each side in its own worker processes"}};
  return refused;
}

constexpr std::size_t reference_rounds_to_warn = 10;

// What the reference did over the run, for the run's last lines: its own B/A (the same code on
// both sides, so 1 but for the process pairs' modes) and, where a stricter interval over 10
// rounds or more leaves 1 out, a warning that the adjustment's premise failed. None where it was
// not asked for.
std::optional<std::string> reference_line(const ab_reference_summary& r,
                                          const ab_options& options) {
  if (!r.asked) {
    return std::nullopt;
  }
  if (r.log_ratios.empty()) {
    return fmt::format("no reference measured: {}",
                       r.off_reason.empty() ? "no round ran one" : r.off_reason);
  }
  sequential_ratio sequence(options.alpha);
  // The warning's own sequence is stricter (alpha / 10, from 10 rounds): the reference's rounds
  // come in two modes, and a few of them can agree by chance, as a state's can ("The minimum of
  // rounds", docs/ab.md); a false alarm would send the user to judge without it.
  sequential_ratio strict(options.alpha / 10);
  for (const double x : r.log_ratios) {
    sequence.add_block(x);
    strict.add_block(x);
  }
  const ab_interval i = sequence.interval();
  const ab_interval warned = strict.interval();
  std::string line = fmt::format(
      "reference (kerntime's 16 one-warp launches, the same code on both sides) measured in {} "
      "process pair{}, {:.1f} s: B/A {:.4f}{}{}",
      r.log_ratios.size(), r.log_ratios.size() == 1 ? "" : "s", r.seconds, i.ratio,
      std::isfinite(i.high) ? fmt::format(" [{:.4f}, {:.4f}]", i.low, i.high) : std::string(),
      r.failed_rounds > 0 ? fmt::format("; it failed in {} round{} (their states unadjusted)",
                                        r.failed_rounds, r.failed_rounds == 1 ? "" : "s")
                          : std::string());
  if (r.log_ratios.size() >= reference_rounds_to_warn && (warned.low > 1 || warned.high < 1)) {
    line += "\nkerntime: warning: the reference's interval leaves out 1: something in one "
            "program's processes other than its code moves launch-bound work, and the "
            "adjustment assumes nothing does; judge without it: --reference 0";
  }
  return line;
}

} // namespace

CLI::App* add_ab_command(CLI::App& app, ab_flags& flags) {
  CLI::App& ab = *app.add_subcommand(
      "ab", "Is B faster than A? Two programs' trials interleaved on one GPU, each state decided "
            "as soon as it is sure (exit 1 when one got slower)");
  for (const auto& [name, instead] : refused_run_flags()) {
    ab.add_option(name, flags.refused, "")->expected(0, 1)->group("");
  }
  ab.add_option("programs", flags.programs,
                "A_PROGRAM B_PROGRAM: two kerntime programs (the kerntime command, or programs "
                "linking kerntime::kerntime_main, e.g. built from main and from a pull request); "
                "the same program twice is an A/A check")
      ->expected(2);
  ab.add_option("--filter", flags.filter,
                "Only states whose name this pattern finds (RE2 syntax), as in kerntime run");
  ab.add_option("-a,--axis", flags.axis_specs, "Override an axis, as in kerntime run")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  add_trial_protocol_options(ab, flags.trial);
  ab.add_option("--cuda-graph", flags.cuda_graph,
                "Launch the work as a CUDA graph (on), or not (off)")
      ->expected(0, 1)
      ->type_name("[on|off]");
  ab.add_option("--threshold", flags.threshold, "B/A within this band is 'same', e.g. 1% or 0.01")
      ->capture_default_str();
  ab.add_option("--alpha", flags.alpha,
                "The chance that a state's interval ever misses its ratio, over all its looks")
      ->capture_default_str();
  ab.add_option("--max-pairs", flags.max_pairs,
                "The most A-B pairs of trials per state at --pairs-per-round (two per A B B A "
                "block; a multiple of it): its rounds are --max-pairs / --pairs-per-round, a "
                "round of more blocks (--most-pairs-per-round) counting as one; then "
                "inconclusive, with the interval reached")
      ->capture_default_str();
  ab.add_option("--pairs-per-round", flags.pairs_per_round,
                "A-B pairs of trials of each undecided state per round; every round is a fresh "
                "process pair (one worker per side), whose blocks give the state one observation")
      ->capture_default_str();
  ab.add_option("--most-pairs-per-round", flags.most_pairs_per_round,
                "The most A-B pairs a state's round may run: a state whose own preparations "
                "spread (not its process pairs) runs 1, 2, 4, ... blocks (two pairs each) up to "
                "it where they save more rounds than they cost (docs/ab.md); --pairs-per-round's "
                "value: never more")
      ->capture_default_str();
  ab.add_option("--min-rounds", flags.min_rounds,
                "No decision before a state has this many rounds (process pairs) of observations")
      ->capture_default_str();
  ab.add_flag("--keep-workers", flags.keep_workers,
              "Keep one process pair for the whole run and read every block as an observation: "
              "shows the offset a process pair carries, but decides too readily (docs/ab.md)");
  ab.add_flag("--start-ahead", flags.start_ahead,
              "Start the next round's process pair while this round's measures; those starts "
              "overlap trials, which the driver then slows by about what the wait saves "
              "(docs/ab.md, \"Cheaper rounds\")");
  ab.add_option("--reference", flags.reference,
                "Trials per side of kerntime's own launch-bound reference (16 one-warp launches) "
                "each round's process pair runs before its states: each state's round is then "
                "taken less the part of the reference's B/A it follows, the process pair's "
                "launch-gap mode (docs/ab.md); even; 0: none (and none with --keep-workers, whose "
                "one process pair has one mode)")
      ->capture_default_str();
  ab.add_option("--streams", flags.streams,
                "one: each worker makes every measurement, its states' and the reference's, on "
                "one stream, so they share the launch-gap mode a stream draws; fresh: each "
                "measurement on a stream of its own (as kerntime run does)")
      ->capture_default_str();
  ab.add_flag("--run-to-limits", flags.run_to_limits,
              "Judge every state at --threshold and run it to --max-pairs or --max-time; by "
              "default one too spread to settle `same` within --max-pairs goes on, from its 10th "
              "round, with `same` at the narrowest band up to 5 x --threshold its spread could "
              "settle, and one no such band could settle within twice --max-pairs stops "
              "(docs/ab.md)");
  ab.add_option("--vary-placement", flags.vary_placement,
                "on: each preparation first takes a GPU allocation of a drawn size, so the "
                "state's buffers land somewhere new each time; all: its flush buffer too (made "
                "afresh after the pad; the worker keeps one otherwise); off: where the allocator "
                "puts them")
      ->capture_default_str();
  ab.add_option("--max-time", flags.max_time_s,
                "Seconds of a state's own trials (over all rounds) after which it runs in no "
                "more rounds; then inconclusive")
      ->capture_default_str();
  add_worker_options(ab, flags.workers,
                     {"a pair of workers", "one trial", "timed_out for that side"});
  ab.add_flag("--fail-on-inconclusive", flags.fail_on_inconclusive,
              "Exit 1 when a state ends inconclusive (a strict gate)");
  add_comparison_output_options(ab, flags.outputs);
  ab.add_option("--html", flags.html,
                "Write one self-contained HTML page: B's results with each state's ratio to A");
  ab.add_option("--results-a", flags.results_a,
                "Write A's result set (kerntime JSON: every preparation's trial, pooled per "
                "state) to FILE, for compare, report and merge");
  ab.add_option("--results-b", flags.results_b, "Write B's result set to FILE, likewise");
  return &ab;
}

int run_ab_command(const CLI::App& ab, const ab_flags& flags, const std::vector<std::string>& args,
                   const cli_environment& env) {
  auto& out = *env.out;
  auto& err = *env.err;
  for (const auto& [name, instead] : refused_run_flags()) {
    if (ab.get_option(name)->count() > 0) {
      throw invalid_argument(
          fmt::format("kerntime ab does not take {}: {}; drop {}", name, instead, name));
    }
  }
  if (flags.programs.size() != 2) {
    throw invalid_argument("give two programs: kerntime ab A_PROGRAM B_PROGRAM (the same "
                           "program twice is an A/A check)");
  }
  ab_options options;
  options.threshold = threshold_flag(flags.threshold);
  options.alpha = flags.alpha;
  check_ab_options(options);
  if (flags.pairs_per_round < 2 || flags.pairs_per_round % 2 != 0) {
    throw invalid_argument(
        fmt::format("--pairs-per-round {}: give an even number, whole blocks of A B B A, e.g. "
                    "--pairs-per-round 2",
                    flags.pairs_per_round));
  }
  if (flags.max_pairs < flags.pairs_per_round || flags.max_pairs % flags.pairs_per_round != 0) {
    throw invalid_argument(
        fmt::format("--max-pairs {}: give a multiple of --pairs-per-round ({}), whole rounds, e.g. "
                    "--max-pairs {}",
                    flags.max_pairs, flags.pairs_per_round,
                    std::max(flags.pairs_per_round,
                             flags.max_pairs / flags.pairs_per_round * flags.pairs_per_round)));
  }
  const bool most_given = ab.get_option("--most-pairs-per-round")->count() > 0;
  const long long most_pairs = most_given
                                   ? flags.most_pairs_per_round
                                   : std::max(flags.most_pairs_per_round, flags.pairs_per_round);
  if (most_pairs < flags.pairs_per_round || most_pairs % 2 != 0) {
    throw invalid_argument(fmt::format(
        "--most-pairs-per-round {}: give an even number, at least --pairs-per-round ({}), e.g. "
        "--most-pairs-per-round {}",
        most_pairs, flags.pairs_per_round, std::max<long long>(8, flags.pairs_per_round)));
  }
  if (flags.min_rounds < 0 || flags.min_rounds * flags.pairs_per_round > flags.max_pairs) {
    throw invalid_argument(fmt::format(
        "--min-rounds {}: at --pairs-per-round {} that is more pairs than --max-pairs ({}); "
        "give at most {}",
        flags.min_rounds, flags.pairs_per_round, flags.max_pairs,
        flags.max_pairs / flags.pairs_per_round));
  }
  if (flags.reference < 0 || flags.reference % 2 != 0) {
    throw invalid_argument(fmt::format("--reference {}: give an even number of trials per side "
                                       "(whole blocks of A B B A), e.g. --reference 4, or 0 for "
                                       "none",
                                       flags.reference));
  }
  if (flags.streams != "one" && flags.streams != "fresh") {
    throw invalid_argument(
        fmt::format("--streams {} is neither one nor fresh; e.g. --streams one", flags.streams));
  }
  if (!(flags.max_time_s > 0)) {
    throw invalid_argument(fmt::format(
        "--max-time {:g}: give a number of seconds above 0, e.g. --max-time 60", flags.max_time_s));
  }
  if (flags.vary_placement != "on" && flags.vary_placement != "all" &&
      flags.vary_placement != "off") {
    throw invalid_argument(
        fmt::format("--vary-placement {} is none of on, all and off; e.g. --vary-placement off",
                    flags.vary_placement));
  }
  check_protocol(ab, flags);
  const std::vector<comparison_output> texts = comparison_outputs(flags.outputs);
  std::vector<output_path> outputs = files_of(texts);
  for (const auto& [flag, path] :
       {std::pair{"--html", &flags.html}, std::pair{"--results-a", &flags.results_a},
        std::pair{"--results-b", &flags.results_b}}) {
    if (!path->empty()) {
      outputs.push_back({flag, *path});
    }
  }
  const std::string a_path = program_path(flags.programs[0], "A_PROGRAM");
  const std::string b_path = program_path(flags.programs[1], "B_PROGRAM");
  check_output_paths(outputs, {{"A_PROGRAM", a_path}, {"B_PROGRAM", b_path}});
  check_worker_flags(flags.workers);
  const auto selection = forwarded_arguments(ab, true);
  const auto matched =
      match(plan_of(a_path, "A_PROGRAM", selection), plan_of(b_path, "B_PROGRAM", selection));
  if (matched.both.empty()) {
    throw invalid_argument(fmt::format(
        "A and B have no state in common (A {}, B {}); compare programs of the same benchmarks "
        "(kerntime list shows the names)",
        counted(matched.only_a.size(), "state"), matched.only_b.size()));
  }
  if (auto problem = env.find_device_problem()) {
    err << "kerntime: " << *problem << '\n';
    return exit_no_device;
  }

  ab_run_settings settings;
  settings.options = options;
  settings.max_pairs = static_cast<std::size_t>(flags.max_pairs);
  settings.pairs_per_round = static_cast<std::size_t>(flags.pairs_per_round);
  settings.most_pairs_per_round = static_cast<std::size_t>(most_pairs);
  settings.min_rounds = static_cast<std::size_t>(flags.min_rounds);
  settings.keep_workers = flags.keep_workers;
  settings.start_ahead = flags.start_ahead;
  settings.reference_trials = flags.keep_workers ? 0 : static_cast<std::size_t>(flags.reference);
  settings.give_up_early = !flags.run_to_limits;
  settings.max_time_s = flags.max_time_s;
  settings.trial_timeout_s = flags.workers.state_timeout_s;
  settings.start_timeout_s = std::max(120.0, flags.workers.state_timeout_s);
  settings.progress = env.err_is_terminal ? &err : nullptr;
  settings.events = &err;
  std::vector<std::string> worker_args{"run", "--trials", "1"};
  const auto forwarded = forwarded_arguments(ab, false);
  worker_args.insert(worker_args.end(), forwarded.begin(), forwarded.end());
  const auto launch_of = [&](const std::string& path,
                             std::vector<std::pair<std::string, std::string>> environment) {
    worker_launch launch;
    launch.argv = {path};
    launch.argv.insert(launch.argv.end(), worker_args.begin(), worker_args.end());
    if (flags.vary_placement != "off") {
      environment.emplace_back(vary_placement_variable,
                               flags.vary_placement == "all" ? vary_flush_too : "inputs");
    }
    if (flags.streams == "one") {
      environment.emplace_back(one_stream_variable, "1");
    }
    launch.environment = std::move(environment);
    return launch;
  };
  if (flags.workers.devices) {
    for (const int d : parse_devices(*flags.workers.devices, count_devices())) {
      settings.pairs.push_back({.a = launch_of(a_path, worker_device_environment(d)),
                                .b = launch_of(b_path, worker_device_environment(d)),
                                .label = fmt::format("GPU {}", d)});
    }
  } else {
    settings.pairs.push_back(
        {.a = launch_of(a_path, {}), .b = launch_of(b_path, {}), .label = "the GPU"});
  }
  err << fmt::format("kerntime: ab: {} state{} in both (A {}, B {}); ±{:g} % band, alpha {:g}\n",
                     matched.both.size(), matched.both.size() == 1 ? "" : "s", a_path, b_path,
                     100 * options.threshold, options.alpha);
  const auto started = std::chrono::steady_clock::now();
  supervision_summary summary;
  ab_reference_summary reference;
  const auto outcomes = run_ab(matched.both, settings, &summary, &reference);
  // Nothing measured because no worker could use a GPU (held in exclusive mode, broken), as when
  // no GPU is found; or because every worker refused the run's flags (a program built with
  // another kerntime), as any bad input.
  for (const auto& rule : {std::pair{error_kind::device_unavailable, exit_no_device},
                           std::pair{error_kind::invalid_argument, exit_bad_input}}) {
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
    const error_kind kind = rule.first;
    if (!outcomes.empty() && std::all_of(outcomes.begin(), outcomes.end(), [kind](const auto& o) {
          return o.a.empty() && o.b.empty() && o.failure_kind == kind;
        })) {
      err << "kerntime: " << message_line(outcomes.front().failure) << '\n';
      return rule.second;
    }
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  comparison c;
  c.method = "ab";
  c.options.threshold = options.threshold;
  c.options.alpha = options.alpha;
  c.only_in_base = matched.only_a;
  c.only_in_new = matched.only_b;
  std::vector<benchmark_run> runs_a;
  std::vector<benchmark_run> runs_b;
  int failed = 0;
  int inconclusive = 0;
  std::vector<std::string> widened;     // judged at a band wider than --threshold
  std::vector<std::string> more_blocks; // ran more blocks in a round than in its first
  for (const auto& o : outcomes) {
    if (ran_more_blocks(o.process_pairs)) {
      more_blocks.push_back(fmt::format("{} ({} blocks in {} rounds)", o.state.name,
                                        blocks_in_all(o.process_pairs), o.process_pairs.size()));
    }
    const bool neither = !o.failure.empty() && !o.failed_side;
    const bool a_failed = neither || o.failed_side == ab_side::a;
    const bool b_failed = neither || o.failed_side == ab_side::b;
    runs_a.push_back(side_record(o, o.a, a_failed));
    runs_b.push_back(side_record(o, o.b, b_failed));
    if (o.comparison) {
      c.states.push_back(*o.comparison);
      inconclusive += o.comparison->outcome == verdict::inconclusive ? 1 : 0;
      if (o.comparison->band > options.threshold &&
          o.comparison->outcome != verdict::inconclusive) {
        widened.push_back(fmt::format("{} (±{:g} %)", o.state.name, 100 * o.comparison->band));
      }
    } else {
      c.not_compared.push_back(fmt::format("{}: {}", o.state.name, o.failure));
      failed += o.skipped ? 0 : 1;
    }
    if (o.device && c.base_device.empty()) {
      c.base_device = c.new_device = o.device->name;
    }
  }
  const run_context context_a = make_run_context(args, runs_a);
  const run_context context_b = make_run_context(args, runs_b);
  if (!flags.outputs.quiet) {
    out << fmt::format(
               "A/B: A = {}, B = {}; interleaved A B B A, a fresh preparation per trial\n\n",
               a_path, b_path)
        << comparison_markdown(c) << std::flush;
  }
  int exit_code = exit_ok;
  for (const auto& text : texts) {
    try {
      write_file_atomically(text.file.path, [&](std::ostream& file) { file << text.text(c); });
    } catch (const error& e) {
      err << "kerntime: " << message_line(e.what()) << '\n';
      exit_code = exit_benchmark_failed;
    }
  }
  const auto write_results = [&](const std::string& flag, const std::string& path,
                                 const run_context& context, const std::vector<benchmark_run>& runs,
                                 const comparison* compared) {
    if (path.empty()) {
      return;
    }
    report_file_flags files;
    files.files[flag == "--html" ? "--html" : "--json"] = path;
    try { // checked before the run; a folder gone since is a file not written, not bad input
      if (!write_report_files(plan_report_files(files), context, runs, err, compared)) {
        exit_code = exit_benchmark_failed;
      }
    } catch (const error& e) {
      err << "kerntime: " << flag << ' ' << path << " was not written: " << message_line(e.what())
          << '\n';
      exit_code = exit_benchmark_failed;
    }
  };
  write_results("--results-a", flags.results_a, context_a, runs_a, nullptr);
  write_results("--results-b", flags.results_b, context_b, runs_b, nullptr);
  write_results("--html", flags.html, context_b, runs_b, &c);
  err << "kerntime: " << decision_time_summary(outcomes, wall)
      << fmt::format("; {} worker process{} ({:.1f} s waiting for them to start, {:.1f} s to "
                     "exit), {} fault{}\n",
                     summary.workers_started, summary.workers_started == 1 ? "" : "es",
                     summary.start_wait_seconds, summary.exit_wait_seconds, summary.faults,
                     summary.faults == 1 ? "" : "s");
  if (const auto line = reference_line(reference, options)) {
    err << "kerntime: " << *line << '\n';
  }
  if (failed > 0) {
    err << fmt::format("kerntime: {} of {} failed on a side\n", failed,
                       counted(outcomes.size(), "state"));
    exit_code = exit_benchmark_failed;
  }
  if (has_regression(c)) {
    err << "kerntime: B is slower than A beyond the band in a state (listed first)\n";
    exit_code = exit_regression;
  }
  if (!more_blocks.empty()) {
    err << fmt::format("kerntime: {} whose own preparations spread ran more blocks in a round "
                       "(--most-pairs-per-round; each state's notes give the spreads): {}\n",
                       counted(more_blocks.size(), "state"), fmt::join(more_blocks, ", "));
  }
  if (!widened.empty()) {
    err << fmt::format("kerntime: {} state{} spread too widely for ±{:g} % and {} judged `same` "
                       "at the band {} spread could settle (band_reason; --run-to-limits keeps "
                       "±{:g} %): {}\n",
                       widened.size(), widened.size() == 1 ? "" : "s", 100 * options.threshold,
                       widened.size() == 1 ? "was" : "were", widened.size() == 1 ? "its" : "their",
                       100 * options.threshold, fmt::join(widened, ", "));
  }
  if (flags.fail_on_inconclusive && (inconclusive > 0 || !widened.empty())) {
    err << fmt::format("kerntime: {} state{} stayed inconclusive and {} settled only at a wider "
                       "band than ±{:g} % (--fail-on-inconclusive)\n",
                       inconclusive, inconclusive == 1 ? "" : "s", widened.size(),
                       100 * options.threshold);
    exit_code = exit_regression;
  }
  return exit_code;
}

} // namespace kerntime::detail
