#include "cli/report_files.hpp"

#include <algorithm>
#include <ostream>

#include "cli/input_text.hpp"
#include "cli/output_paths.hpp"

namespace kerntime::detail {

void add_report_file_options(CLI::App& command, report_file_flags& flags) {
  for (const auto& format : report_formats()) {
    if (!format.flag.empty()) {
      command.add_option(std::string(format.flag), flags.files[std::string(format.flag)],
                         std::string(format.description));
    }
  }
  command
      .add_option("--junit-family", flags.junit_family,
                  "JUnit flavour: xunit1 (properties in each testcase, as pytest writes) or "
                  "xunit2 (valid against Jenkins' junit-10.xsd: properties on the testsuite)")
      ->capture_default_str();
}

report_plan plan_report_files(const report_file_flags& flags,
                              const std::vector<input_path>& inputs) {
  report_plan plan;
  for (const auto& format : report_formats()) {
    const auto given = flags.files.find(std::string(format.flag));
    if (given != flags.files.end() && !given->second.empty()) {
      plan.files.push_back({&format, given->second});
    }
  }
  plan.family =
      junit_family_flag(flags.junit_family,
                        std::any_of(plan.files.begin(), plan.files.end(), [](const report_file& f) {
                          return f.format->name == "junit";
                        }));
  std::vector<output_path> paths;
  paths.reserve(plan.files.size());
  for (const auto& f : plan.files) {
    paths.push_back({std::string(f.format->flag), f.path});
  }
  check_output_paths(paths, inputs);
  return plan;
}

bool write_report_files(const report_plan& plan, const run_context& context,
                        std::span<const benchmark_run> runs, std::ostream& err,
                        const comparison* compared) {
  bool all_written = true;
  for (const auto& f : plan.files) {
    try {
      const auto writer = f.format->name == "junit"  ? make_junit_writer(plan.family)
                          : f.format->name == "html" ? make_html_writer(compared)
                                                     : f.format->make_writer();
      write_file_atomically(f.path,
                            [&](std::ostream& file) { writer->print(file, context, runs); });
    } catch (const std::exception& e) {
      err << "kerntime: error: " << f.format->flag << ' ' << f.path
          << " was not written: " << printable(e.what()) << '\n';
      all_written = false;
    }
  }
  return all_written;
}

} // namespace kerntime::detail
