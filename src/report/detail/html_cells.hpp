#pragma once
// Table cells of the HTML report: text escaped, numbers formatted, a dash for a missing value.

#include <optional>
#include <string>
#include <string_view>

namespace kerntime::detail {

// A dash in a number column: no value.
inline constexpr std::string_view html_no_value = "<td class=\"num\">\xE2\x80\x93</td>";

[[nodiscard]] std::string cell(std::string_view text, std::string_view css = "");
[[nodiscard]] std::string number_cell(const std::optional<double>& value, std::string_view format);

} // namespace kerntime::detail
