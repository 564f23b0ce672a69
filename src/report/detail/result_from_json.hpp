#pragma once
// A parsed kerntime JSON (simdjson's DOM) as kerntime's types: the inverse of result_json.hpp.
// Throws kerntime::invalid_argument naming the key that is missing, of the wrong type or out of
// range.

#include "kerntime/report.hpp"
#include "report/detail/json_fields.hpp"

namespace kerntime::detail {

// `with_trace` false: the trace is left empty (read_options).
[[nodiscard]] benchmark_run run_of(json_value j, bool with_trace = true);
[[nodiscard]] run_context context_of(json_value j);

} // namespace kerntime::detail
