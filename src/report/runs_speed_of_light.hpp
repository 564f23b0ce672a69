#pragma once
// The speed of light of each measured state of a run (src/roofline computes it from a state's
// declared work and its GPU's peaks): set on the runs the reports show.

#include <span>
#include <string>
#include <vector>

#include "kerntime/report.hpp"
#include "roofline/speed_of_light.hpp"

namespace kerntime::detail {

// Sets `sol` on every ok run whose declared work and device give one, and the counters' fractions
// of peak bandwidth on every run with measured counters. Returns why runs with declared work have
// none, once per GPU ("no speed of light on NVIDIA A2: kerntime's peak table has no row for
// sm_87 …"), for the command line to say.
std::vector<std::string> add_speed_of_light(std::span<benchmark_run> runs,
                                            const roofline_settings& settings);

} // namespace kerntime::detail
