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

// Throws kerntime::invalid_argument naming the flag, the path and the fix when a file could not
// be created or replaced there (a probe file is created and removed in its folder), when a name
// is too long, or when two flags name the same file (through any spelling or symbolic link).
void check_output_paths(const std::vector<output_path>& outputs);

// --junit-family as typed: a flavour, and anything but the default only with a --junit file.
[[nodiscard]] junit_family junit_family_flag(const std::string& text, bool junit_requested);

} // namespace kerntime::detail
