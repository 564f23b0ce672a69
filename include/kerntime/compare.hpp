#pragma once
// Did a change make it faster? compare() reads the result sets of a base and a new run (one or
// several runs per side), and says per state: the ratio NEW/BASE with a 95 % interval, a verdict
// (faster, slower, same, inconclusive), which kernels moved, and whether the GPU clocks differed.
// The method and its measured false-alarm rate are in docs/compare.md.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kerntime/comparison.hpp"
#include "kerntime/report.hpp"

namespace kerntime {

// "2%" or "0.02" as a fraction (0.02); nullopt when the text is neither a number nor a
// percentage. Its range is checked by check_compare_options.
[[nodiscard]] std::optional<double> parse_threshold(std::string_view text);
// Throws kerntime::invalid_argument, saying what to pass instead, when the threshold or alpha is
// not in (0, 1). compare() checks its options with it; callers that take the options long before
// comparing (the pytest plugin at session start) check them first.
void check_compare_options(const compare_options& options);

// The verdict as every output spells it: "slower", or "slower (clock)" for a clock mismatch.
[[nodiscard]] std::string verdict_text(const state_comparison& s);

// Throws kerntime::invalid_argument for an empty side, no state in common (unless not required),
// different GPU models (unless allowed) or an invalid filter or option.
[[nodiscard]] comparison compare(std::span<const result_set> base,
                                 std::span<const result_set> changed,
                                 const compare_options& options = {});

// True when some state got slower beyond the band with significance, unless the clocks explain it
// and the clock-mismatch rule is `warn`: what the gate exits 1 on.
[[nodiscard]] bool has_regression(const comparison& c);

// One line for the gate's user when states read slower in time but not in cycles: how the rule
// judged them and what to run next. Empty when there are none.
[[nodiscard]] std::string clock_mismatch_advice(const comparison& c);

// Markdown (regressions first), JSON with every number, JUnit XML (a testcase per state, a
// failure per regression, states not compared as skipped) and CSV (a row per compared state).
[[nodiscard]] std::string comparison_markdown(const comparison& c);
[[nodiscard]] std::string comparison_json(const comparison& c);
[[nodiscard]] std::string comparison_junit(const comparison& c,
                                           junit_family family = junit_family::xunit1);
[[nodiscard]] std::string comparison_csv(const comparison& c);

} // namespace kerntime
