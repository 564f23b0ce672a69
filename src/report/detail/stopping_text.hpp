#pragma once
// Which stopping rule ran and what it reached, in one line every report shows the same way:
// "stop_at_ci ±0.5 %: 12 trials, interval reached (median within ±0.31 %); warm-up auto: 40
// iterations".

#include <string>

#include "kerntime/result.hpp"

namespace kerntime::detail {

[[nodiscard]] std::string describe_stopping(const measurement_result& r);

// "fixed" or "stop_at_ci": the rule's name in every report.
[[nodiscard]] std::string_view stopping_rule_name(const protocol& p);

// True when the run used a rule other than the fixed protocol's (then markdown shows the line).
[[nodiscard]] bool adaptive_stopping(const protocol& p);

} // namespace kerntime::detail
