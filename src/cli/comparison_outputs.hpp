#pragma once
// The files a comparison is written to, the same for `kerntime compare` and `kerntime ab`:
// --json, --junit (with --junit-family), --csv, and -q for the markdown on stdout.

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/output_paths.hpp"
#include "kerntime/compare.hpp"

namespace kerntime::detail {

struct comparison_output_flags {
  std::string json;
  std::string junit;
  std::string junit_family = "xunit1";
  std::string csv;
  bool quiet = false;
};

void add_comparison_output_options(CLI::App& command, comparison_output_flags& flags);

// A file asked for, and how the comparison reads in it.
struct comparison_output {
  output_path file;
  std::function<std::string(const comparison&)> text;
};

// The files the flags ask for (none for an empty path); throws invalid_argument for a
// --junit-family that is not a flavour, or one given without --junit.
[[nodiscard]] std::vector<comparison_output>
comparison_outputs(const comparison_output_flags& flags);

// Their files, for check_output_paths.
[[nodiscard]] std::vector<output_path> files_of(const std::vector<comparison_output>& outputs);

} // namespace kerntime::detail
