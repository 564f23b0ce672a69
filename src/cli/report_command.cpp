#include "cli/report_command.hpp"

#include <algorithm>
#include <optional>
#include <ostream>
#include <vector>

#include <fmt/format.h>

#include "cli/name_pattern.hpp"
#include "kerntime/compare.hpp"
#include "kerntime/errors.hpp"
#include "kerntime/report.hpp"
#include "result/message_words.hpp"
#include "supervise/exit_codes.hpp"

namespace kerntime::detail {

CLI::App* add_report_command(CLI::App& app, report_flags& flags) {
  CLI::App& report = *app.add_subcommand(
      "report", "Render a kerntime JSON again: HTML, JUnit, CSV, … (with --baseline, compared)");
  report
      .add_option("file", flags.input,
                  "A kerntime JSON (kerntime run --json, merge --json, the pytest plugin's "
                  "--kerntime-json)")
      ->required();
  add_report_file_options(report, flags.reports);
  report.add_option("--baseline", flags.baseline,
                    "Compare with this kerntime JSON first (kerntime compare's rules, "
                    "docs/compare.md): the HTML and markdown show each state's ratio");
  report.add_flag("--gate", flags.gate,
                  "Exit 1 when a state of the file failed or, with --baseline, got slower (as "
                  "run and compare do); without it report exits 0 once its files are written");
  report.add_flag("-q,--quiet", flags.quiet, "No markdown on stdout");
  report.add_option("--filter", flags.filter,
                    "Only the states whose name this pattern finds (RE2 syntax), e.g. "
                    "'gemm|copy': the HTML of a nightly run draws each state's charts only for "
                    "a few hundred states");
  return &report;
}

namespace {

// The runs of `set` whose state name `pattern` finds; refused when it finds none.
void keep_found(result_set& set, const std::string& pattern, const std::string& file) {
  const name_pattern found(pattern, "--filter");
  const auto before = set.runs.size();
  std::erase_if(set.runs, [&](const benchmark_run& r) { return !found.finds(r.state_name); });
  if (set.runs.empty()) {
    throw invalid_argument(fmt::format("--filter '{}' finds none of the {} in {}; "
                                       "`kerntime report {}` lists them",
                                       pattern, counted(before, "state"), file, file));
  }
}

} // namespace

int run_report(const report_flags& flags, const cli_environment& env) {
  std::vector<input_path> inputs{{"the results to report", flags.input}};
  if (!flags.baseline.empty()) {
    inputs.push_back({"the baseline", flags.baseline});
  }
  const report_plan reports = plan_report_files(flags.reports, inputs);
  // The trace only where a file holds it (--trace, --json): a third of a result's memory.
  const auto writes = [&flags](const char* flag) {
    const auto it = flags.reports.files.find(flag);
    return it != flags.reports.files.end() && !it->second.empty();
  };
  std::vector<result_set> measured{
      read_result_set(flags.input, {.trace = writes("--trace") || writes("--json")})};
  if (flags.filter) {
    keep_found(measured.front(), *flags.filter, flags.input);
  }
  std::optional<comparison> compared;
  if (!flags.baseline.empty()) {
    std::vector<result_set> base{read_result_set(flags.baseline, {.trace = false})};
    if (flags.filter) { // the same states on both sides: none is "only in the new run"
      const name_pattern found(*flags.filter, "--filter");
      std::erase_if(base.front().runs,
                    [&](const benchmark_run& r) { return !found.finds(r.state_name); });
    }
    compared = compare(base, measured);
  }
  const auto& [context, runs] = measured.front();
  if (!flags.quiet) {
    make_markdown_writer()->print(*env.out, context, runs);
    if (compared) {
      *env.out << '\n' << comparison_markdown(*compared);
    }
    *env.out << std::flush;
  }
  int exit_code =
      write_report_files(reports, context, runs, *env.err, compared ? &*compared : nullptr)
          ? exit_ok
          : exit_benchmark_failed;
  if (!flags.gate) {
    return exit_code;
  }
  const auto failed = std::count_if(runs.begin(), runs.end(), [](const benchmark_run& r) {
    return r.status == run_status::failed;
  });
  if (failed > 0) {
    *env.err << fmt::format("kerntime: {} of {} in {} failed (--gate)\n", failed,
                            counted(runs.size(), "state"), flags.input);
    exit_code = exit_benchmark_failed;
  }
  if (compared && has_regression(*compared)) {
    *env.err << "kerntime: a state got slower than in " << flags.baseline << " (--gate)\n";
    exit_code = exit_regression;
  }
  return exit_code;
}

} // namespace kerntime::detail
