#pragma once
// Every report file is checked before anything runs: a run of many minutes must not end in
// "cannot write".

#include <filesystem>
#include <string>
#include <vector>

#include "kerntime/report.hpp"

namespace kerntime::detail {

struct output_path {
  std::string flag; // "--json"
  std::filesystem::path path;
};

// A file the command reads (a result set, a baseline, a shard): no report may replace it.
struct input_path {
  std::string role; // what the file is to the command, e.g. "the new results"
  std::filesystem::path path;
};

// Throws kerntime::invalid_argument naming the flag, the path and the fix when a file could not
// be created or replaced there (a probe file is created and removed in its folder), when a name
// is too long, when two flags name the same file, or when a flag names one of the inputs (through
// any spelling, symbolic link or hard link): `compare a.json b.json --json b.json` once replaced
// a run's results with the comparison.
void check_output_paths(const std::vector<output_path>& outputs,
                        const std::vector<input_path>& inputs = {});

// --junit-family as typed: a flavour, and anything but the default only with a --junit file.
[[nodiscard]] junit_family junit_family_flag(const std::string& text, bool junit_requested);

} // namespace kerntime::detail
