#pragma once
// Every value a flag takes is checked as text before CLI11 converts it: an empty value is not a
// zero, a number too large for its type is not clamped, and "nan" is not a number.

#include <CLI/CLI.hpp>

namespace kerntime::detail {

// Adds the checks to every option of `app` and of its subcommands that takes a value.
void check_every_value(CLI::App& app);

} // namespace kerntime::detail
