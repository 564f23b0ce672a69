#pragma once
// The HTML report's style sheet: inline in the page (no file, no font fetched), colours chosen to
// read for colour-blind eyes (the series colours) and on paper.

#include <string_view>

namespace kerntime::detail {

extern const std::string_view html_style_sheet;

} // namespace kerntime::detail
