#pragma once
// The report files of a command (--json, --junit, --csv, --gbench-json, --trace, --html): the
// flags, the check of their paths before anything runs, and their writing, each file whole or not
// at all. Shared by `run`, `merge` and `report`.

#include <CLI/CLI.hpp>

#include <iosfwd>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "cli/output_paths.hpp"
#include "kerntime/report.hpp"

namespace kerntime::detail {

struct report_file_flags {
  std::map<std::string, std::string> files; // report file by flag ("--json")
  std::string junit_family = std::string(to_string(junit_family::xunit1));
};

void add_report_file_options(CLI::App& command, report_file_flags& flags);

struct report_file {
  const report_format* format;
  std::string path;
};

// The files asked for, their paths checked (output_paths.hpp: none may replace one of `inputs`,
// the files the command reads) and the JUnit flavour read. Throws kerntime::invalid_argument
// before anything runs.
struct report_plan {
  std::vector<report_file> files;
  junit_family family = junit_family::xunit1;
};
[[nodiscard]] report_plan plan_report_files(const report_file_flags& flags,
                                            const std::vector<input_path>& inputs = {});

// Writes every file; a file that cannot be written is named on `err` and the others are still
// written. Returns false when one was not written. Given a comparison with a baseline, the HTML
// shows each state's ratio.
bool write_report_files(const report_plan& plan, const run_context& context,
                        std::span<const benchmark_run> runs, std::ostream& err,
                        const comparison* compared = nullptr);

} // namespace kerntime::detail
