#include "cli/report_command.hpp"

#include <optional>
#include <ostream>
#include <vector>

#include "cli/exit_codes.hpp"
#include "kerntime/compare.hpp"
#include "kerntime/report.hpp"

namespace kerntime::detail {

void add_report_options(CLI::App& report, report_flags& flags) {
  report
      .add_option("file", flags.input,
                  "A kerntime JSON (kerntime run --json, merge --json, the pytest plugin's "
                  "--kerntime-json)")
      ->required();
  add_report_file_options(report, flags.reports);
  report.add_option("--baseline", flags.baseline,
                    "Compare with this kerntime JSON first (kerntime compare's rules, "
                    "docs/compare.md): the HTML and markdown show each state's ratio");
  report.add_flag("-q,--quiet", flags.quiet, "No markdown on stdout");
}

int run_report(const report_flags& flags, const cli_environment& env) {
  std::vector<input_path> inputs{{"the results to report", flags.input}};
  if (!flags.baseline.empty()) {
    inputs.push_back({"the baseline", flags.baseline});
  }
  const report_plan reports = plan_report_files(flags.reports, inputs);
  const std::vector<result_set> measured{read_result_set(flags.input)};
  std::optional<comparison> compared;
  if (!flags.baseline.empty()) {
    const std::vector<result_set> base{read_result_set(flags.baseline)};
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
  return write_report_files(reports, context, runs, *env.err, compared ? &*compared : nullptr)
             ? exit_ok
             : exit_benchmark_failed;
}

} // namespace kerntime::detail
