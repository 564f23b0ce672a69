#include "cli/command_line.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <map>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/compare_command.hpp"
#include "cli/device_listing.hpp"
#include "cli/exit_codes.hpp"
#include "cli/input_text.hpp"
#include "cli/output_paths.hpp"
#include "cli/run_context.hpp"
#include "cli/state_plan.hpp"
#include "cli/state_runner.hpp"
#include "cli/value_checks.hpp"
#include "kerntime/compare.hpp"
#include "kerntime/report.hpp"

namespace kerntime::detail {
namespace {

// What `list` and `run` select.
struct selection_flags {
  std::optional<std::string> filter;
  std::vector<std::string> axis_specs;
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
  std::map<std::string, std::string> files; // report file by flag ("--json")
  std::string baseline;                     // compare the run with this kerntime JSON
  std::string junit_family = std::string(to_string(junit_family::xunit1));
  bool quiet = false;
};

// The protocol's settings as the command line spells them, for its flags and its messages.
constexpr setting_names flag_names{.warmup = "--warmup",
                                   .trials = "--trials",
                                   .stop_at_ci = "--stop-at-ci",
                                   .max_trials = "--max-trials",
                                   .max_time = "--max-time",
                                   .repeats = "--repeat",
                                   .input_sets = "--input-sets",
                                   .no_flush = "--no-flush",
                                   .flush_bytes = "--flush-bytes",
                                   .backend = "--backend",
                                   .metric = "--metric",
                                   .no_telemetry = "--no-telemetry",
                                   .throttle_threshold = "--throttle-threshold",
                                   .discard_throttled = "--discard-throttled",
                                   .assign = " "};

// Errors are one line of printable characters: a CI log shows the first line, and a person
// reads one sentence. Values are shortened where kerntime quotes them (input_text.hpp); a
// message that still runs long (CLI11 echoes values whole) is cut.
constexpr std::size_t longest_message = 480;

std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  while (!text.empty() && text.back() == ' ') {
    text.pop_back();
  }
  if (text.size() > longest_message) {
    text = fmt::format("{}… (message of {} characters cut)", text.substr(0, longest_message),
                       text.size());
  }
  return printable(text);
}

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
  run.add_option(flag(n.flush_bytes), flush_bytes,
                 "Bytes written by the L2 flush (default: twice the device's L2)");
  run.add_option(flag(n.backend), p.backend,
                 "Timer: auto (CUPTI, else CUDA events), cupti (fail without it) or events")
      ->capture_default_str();
  run.add_option(flag(n.metric), p.metric,
                 "Headline per iteration: span (first start to last end) or busy (sum of GPU "
                 "activity)")
      ->capture_default_str();
  run.add_flag_callback(
      flag(n.no_telemetry), [&p] { p.telemetry = false; }, "Do not read NVML or the on-GPU clock");
  run.add_option(flag(n.throttle_threshold), p.throttle_threshold,
                 "A trial whose measured SM clock is below this fraction of the maximum is "
                 "flagged as throttled")
      ->capture_default_str();
  run.add_flag(flag(n.discard_throttled), p.discard_throttled,
               "Re-run throttled trials after a short pause (at most 3 re-runs in all)");
  for (const auto& format : report_formats()) {
    if (!format.flag.empty()) {
      run.add_option(flag(format.flag), flags.files[std::string(format.flag)],
                     std::string(format.description));
    }
  }
  run.add_option("--junit-family", flags.junit_family,
                 "JUnit flavour: xunit1 (properties in each testcase, as pytest writes) or xunit2 "
                 "(valid against Jenkins' junit-10.xsd: properties on the testsuite)")
      ->capture_default_str();
  run.add_option("--baseline", flags.baseline,
                 "Compare the run with this kerntime JSON and exit 1 if a state got slower "
                 "(kerntime compare's rules, docs/compare.md)");
  run.add_flag("-q,--quiet", flags.quiet, "No markdown on stdout");
}

// The settings CLI11 holds as text or as "given or not" become the protocol request.
void read_typed_settings(const CLI::App& run, run_flags& flags) {
  auto& p = flags.protocol;
  if (flags.warmup == "auto") {
    p.warmup_auto = true;
  } else {
    long long count = 0;
    const char* end = flags.warmup.data() + flags.warmup.size();
    const auto [stop, problem] = std::from_chars(flags.warmup.data(), end, count);
    if (flags.warmup.empty() || problem != std::errc() || stop != end) {
      throw invalid_argument(fmt::format("--warmup takes a count of iterations or auto (got "
                                         "\"{}\"); e.g. --warmup 10 or --warmup auto",
                                         flags.warmup));
    }
    p.warmup = count;
  }
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

int list_states(const state_plan& plan, std::ostream& out) {
  for (const auto& b : plan.benchmarks) {
    out << b.registered->name() << '\n';
    for (const auto& a : b.axes) {
      out << fmt::format("  axis {} ({}{}): {}\n", a.name, to_string(a.kind()),
                         a.power_of_two() ? ", powers of two" : "", axis_values_text(a));
    }
    for (const auto& s : plan.states) {
      if (s.registered == b.registered) {
        out << "  state " << s.name << '\n';
      }
    }
  }
  out << fmt::format("{} benchmarks, {} states\n", plan.benchmarks.size(), plan.states.size());
  return exit_ok;
}

struct report_file {
  const report_format* format;
  std::string path;
};

std::vector<report_file> requested_files(const run_flags& flags) {
  std::vector<report_file> files;
  for (const auto& format : report_formats()) {
    const auto given = flags.files.find(std::string(format.flag));
    if (given != flags.files.end() && !given->second.empty()) {
      files.push_back({&format, given->second});
    }
  }
  return files;
}

int run_benchmarks(const std::vector<std::string>& args, const state_plan& plan, const protocol& p,
                   const run_flags& flags, const cli_environment& env) {
  auto& out = *env.out;
  auto& err = *env.err;
  const auto files = requested_files(flags);
  const junit_family family = junit_family_flag(
      flags.junit_family, std::any_of(files.begin(), files.end(), [](const report_file& f) {
        return f.format->name == "junit";
      }));
  std::vector<output_path> paths;
  paths.reserve(files.size());
  for (const auto& f : files) {
    paths.push_back({std::string(f.format->flag), f.path});
  }
  check_output_paths(paths);
  // Read before running: a baseline that cannot be read must not cost a whole run.
  std::vector<result_set> baseline;
  if (!flags.baseline.empty()) {
    baseline.push_back(read_result_set(flags.baseline));
  }
  if (auto problem = env.find_device_problem()) {
    err << "kerntime: " << *problem << '\n';
    return exit_no_device;
  }

  const auto runs = run_states(plan.states, p, env.err_is_terminal ? &err : nullptr);
  const auto context = make_run_context(args, runs);
  if (!flags.quiet) {
    make_markdown_writer()->print(out, context, runs);
    out << std::flush;
  }
  int exit_code = exit_ok;
  for (const auto& f : files) {
    try {
      const auto writer =
          f.format->name == "junit" ? make_junit_writer(family) : f.format->make_writer();
      write_file_atomically(f.path,
                            [&](std::ostream& file) { writer->print(file, context, runs); });
    } catch (const std::exception& e) {
      err << "kerntime: error: " << f.format->flag << ' ' << f.path
          << " was not written: " << one_line(e.what()) << '\n';
      exit_code = exit_benchmark_failed;
    }
  }
  const auto failed = std::count_if(runs.begin(), runs.end(), [](const benchmark_run& r) {
    return r.status == run_status::failed;
  });
  if (failed > 0) {
    for (const auto& r : runs) {
      if (r.status == run_status::failed && flags.quiet) {
        err << "kerntime: " << r.state_name << " failed: " << one_line(r.message) << '\n';
      }
    }
    err << fmt::format("kerntime: {} of {} states failed\n", failed, runs.size());
    exit_code = exit_benchmark_failed;
  }
  if (!baseline.empty()) {
    const std::vector<result_set> measured{{context, runs}};
    const comparison c = compare(baseline, measured);
    if (!flags.quiet) {
      out << '\n' << comparison_markdown(c) << std::flush;
    }
    if (has_regression(c)) {
      err << "kerntime: a state got slower than in " << flags.baseline << " (listed first)\n";
      exit_code = exit_code == exit_ok ? exit_regression : exit_code;
    }
  }
  return exit_code;
}

} // namespace

int run_command_line(const std::vector<std::string>& args, const benchmark_registry& registry,
                     const cli_environment& env) {
  auto& out = *env.out;
  auto& err = *env.err;

  CLI::App app{"kerntime measures how long CUDA work really takes on the GPU: pure kernel time "
               "from CUPTI, on a cold L2, per kernel.",
               "kerntime"};
  app.require_subcommand(1);
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
  auto* info = app.add_subcommand("info", "Show the CUDA devices and whether CUPTI is usable");
  compare_flags compare_settings;
  auto* compare = app.add_subcommand(
      "compare", "Compare two runs' results per state (exit 1 when something got slower)");
  add_compare_options(*compare, compare_settings);
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
  } catch (const CLI::RequiredError& e) {
    if (app.get_subcommands().empty()) {
      const bool named = args.size() > 1 && !args[1].empty() && args[1].front() != '-';
      err << "kerntime: error: "
          << (named ? one_line(quoted_input(args[1]) + " is not a kerntime command")
                    : std::string("a command is required"))
          << "; run kerntime run, kerntime list, kerntime info or kerntime compare (kerntime "
             "--help explains them)\n";
    } else {
      err << "kerntime: error: " << one_line(e.what()) << "; see kerntime --help\n";
    }
    return exit_bad_input;
  } catch (const CLI::ExtrasError&) {
    // CLI11 lists the extras in reverse; name them in the order they were typed.
    const auto subcommands = app.get_subcommands();
    const std::string command = subcommands.empty() ? "kerntime" : subcommands.front()->get_name();
    err << "kerntime: error: "
        << one_line(
               fmt::format("{} does not take {}", command,
                           quoted_input(fmt::format("{}", fmt::join(app.remaining(true), " ")))))
        << "; see kerntime " << (subcommands.empty() ? "" : command + " ") << "--help\n";
    return exit_bad_input;
  } catch (const CLI::ParseError& e) {
    err << "kerntime: error: " << one_line(e.what()) << "; see kerntime --help or kerntime run "
        << "--help\n";
    return exit_bad_input;
  }

  try {
    if (*info) {
      return print_device_listing(out, err);
    }
    if (*list) {
      return list_states(make_plan(registry, list_selection), out);
    }
    if (*compare) {
      return run_compare(compare_settings, env);
    }
    if (run->count(flag(flag_names.flush_bytes)) > 0) {
      flags.protocol.flush_bytes = flush_bytes;
    }
    read_typed_settings(*run, flags);
    const protocol p = parse_protocol(flags.protocol, flag_names);
    const state_plan plan = make_plan(registry, run_selection);
    return run_benchmarks(args, plan, p, flags, env);
  } catch (const invalid_argument& e) {
    err << "kerntime: error: " << one_line(e.what()) << '\n';
    return exit_bad_input;
  }
}

} // namespace kerntime::detail
