#pragma once
// The sections of a state's article in the HTML report, each a figure: the distribution of every
// iteration by trial and the per-kernel breakdown (html_charts.cpp), the counters
// (html_counters.cpp) and the telemetry: clocks per trial, energy (html_telemetry.cpp).

#include <ostream>
#include <string>
#include <string_view>

#include "kerntime/result.hpp"

namespace kerntime::detail {

// `dots`: a dot per iteration; else each trial as its spread (a page with too many samples).
void print_distribution(std::ostream& out, std::string_view state, const measurement_result& r,
                        bool dots);
void print_kernels(std::ostream& out, std::string_view state, const measurement_result& r);
// Nothing when the counters were not requested.
void print_counters(std::ostream& out, const counters_summary& c);
void print_telemetry(std::ostream& out, std::string_view state, const measurement_result& r);

// The state's trials drawn small (svg_chart.hpp's trial_glyph), the medians' range its tooltip:
// a state of a nightly run's summary page.
[[nodiscard]] std::string trial_glyph(std::string_view state, const measurement_result& r);

} // namespace kerntime::detail
