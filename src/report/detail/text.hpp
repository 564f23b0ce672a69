#pragma once
// Text escaping for every report format. Kernel names arrive from CUPTI as raw bytes: C++
// templates with commas, angle brackets, quotes, non-ASCII identifiers and names of kilobytes.
// Each format has its own rules; the rules are documented in docs/report-formats.md.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kerntime/report.hpp"

namespace kerntime::detail {

// The text with every invalid UTF-8 sequence replaced by U+FFFD, so that strict readers (JSON,
// XML) never reject a report because of one odd byte in a kernel name.
[[nodiscard]] std::string valid_utf8(std::string_view text);

// At most max_code_points code points: the head and the tail joined by "…". Markdown only; every
// machine-readable format keeps the full name.
[[nodiscard]] std::string shorten_middle(std::string_view text, std::size_t max_code_points);

// A kernel name over max_code_points with its template arguments and parameter list folded to
// "<…>" and "(…)", so `cub::…::DeviceRadixSortOnesweepKernel<…>(…)` keeps the part that tells
// kernels apart; then shorten_middle if still too long. Markdown only.
[[nodiscard]] std::string shorten_kernel_name(std::string_view text, std::size_t max_code_points);

// A markdown code span safe inside a table cell: one line, `|` escaped, fenced by more backticks
// than the longest backtick run inside, shortened to max_code_points.
[[nodiscard]] std::string markdown_code_span(std::string_view text, std::size_t max_code_points);

// Free text (a warning, an error message, an axis value) for a markdown paragraph, list item or
// table cell: one line, with the characters that would start markup or end a cell escaped.
[[nodiscard]] std::string markdown_text(std::string_view text);

// XML 1.0 character data or attribute value: & < > " ' escaped, tab/newline/carriage return as
// character references (attribute normalisation would otherwise eat them), and the control
// characters XML 1.0 forbids replaced by U+FFFD.
[[nodiscard]] std::string xml_escape(std::string_view text);

// A JUnit <properties> block, one <property> per pair (repeated names allowed), each line
// starting with `indent`; empty when there are none.
[[nodiscard]] std::string
xml_properties(const std::vector<std::pair<std::string, std::string>>& properties,
               std::string_view indent);

// One RFC 4180 field: quoted when it holds a comma, a quote, CR, LF or edge spaces; quotes doubled.
[[nodiscard]] std::string csv_field(std::string_view text);

// A failed run's error kind as every format spells it; empty for a run that did not fail.
[[nodiscard]] std::string error_kind_text(const benchmark_run& run);

} // namespace kerntime::detail
