#include "cli/comparison_outputs.hpp"

namespace kerntime::detail {

void add_comparison_output_options(CLI::App& command, comparison_output_flags& flags) {
  command.add_option("--json", flags.json, "Write the comparison as JSON to FILE");
  command.add_option("--junit", flags.junit,
                     "Write JUnit XML to FILE: a testcase per state, a failure per regression");
  command
      .add_option("--junit-family", flags.junit_family,
                  "JUnit flavour: xunit1 (properties in each testcase) or xunit2 (valid "
                  "against Jenkins' junit-10.xsd: properties on the testsuite)")
      ->capture_default_str();
  command.add_option("--csv", flags.csv, "Write CSV (a row per compared state) to FILE");
  command.add_flag("-q,--quiet", flags.quiet, "No markdown on stdout");
}

std::vector<comparison_output> comparison_outputs(const comparison_output_flags& flags) {
  const junit_family family = junit_family_flag(flags.junit_family, !flags.junit.empty());
  std::vector<comparison_output> outputs;
  const auto add = [&](const char* flag, const std::string& path,
                       std::function<std::string(const comparison&)> text) {
    if (!path.empty()) {
      outputs.push_back({{flag, path}, std::move(text)});
    }
  };
  add("--json", flags.json, comparison_json);
  add("--junit", flags.junit,
      [family](const comparison& c) { return comparison_junit(c, family); });
  add("--csv", flags.csv, comparison_csv);
  return outputs;
}

std::vector<output_path> files_of(const std::vector<comparison_output>& outputs) {
  std::vector<output_path> files;
  files.reserve(outputs.size());
  for (const auto& output : outputs) {
    files.push_back(output.file);
  }
  return files;
}

} // namespace kerntime::detail
