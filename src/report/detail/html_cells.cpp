#include "report/detail/html_cells.hpp"

#include <fmt/format.h>

#include "report/detail/html_text.hpp"

namespace kerntime::detail {

std::string cell(std::string_view text, std::string_view css) {
  return css.empty() ? fmt::format("<td>{}</td>", html_escape(text))
                     : fmt::format("<td class=\"{}\">{}</td>", css, html_escape(text));
}

std::string number_cell(const std::optional<double>& value, std::string_view format) {
  return value ? fmt::format("<td class=\"num\">{}</td>", fmt::format(fmt::runtime(format), *value))
               : std::string(html_no_value);
}

} // namespace kerntime::detail
