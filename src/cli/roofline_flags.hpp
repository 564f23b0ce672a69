#pragma once
// `kerntime run --peaks FILE --calibration FILE`: the files are read before anything runs (bad
// input exits 2 at once), and the speed of light is added to the runs once they are measured.

#include <CLI/CLI.hpp>

#include <string>

#include "roofline/speed_of_light.hpp"

namespace kerntime::detail {

struct roofline_flags {
  std::string peaks;       // --peaks FILE
  std::string calibration; // --calibration FILE
};

void add_roofline_options(CLI::App& run, roofline_flags& flags);

// Throws kerntime::invalid_argument naming the flag, the file and the fix.
[[nodiscard]] roofline_settings load_roofline_settings(const roofline_flags& flags);

} // namespace kerntime::detail
