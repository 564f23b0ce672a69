#pragma once
// The command line parsed, or CLI11's complaint said in kerntime's words: a missing or unknown
// command named with the list of commands, extra words in the order they were typed, a bad value
// with where to read about it. --help and --version print and exit 0.

#include <CLI/CLI.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace kerntime::detail {

// nullopt when `args` parsed (the caller runs the command); else the exit code, having printed
// the help, the version or the error.
[[nodiscard]] std::optional<int> parse_or_explain(CLI::App& app,
                                                  const std::vector<std::string>& args,
                                                  const std::string& program, std::ostream& out,
                                                  std::ostream& err);

} // namespace kerntime::detail
