#pragma once
// Text for the HTML report. Names come from CUPTI and from users: C++ templates with `<`, `>` and
// `&`, quotes, control characters, invalid UTF-8. Everything the page shows passes through here,
// so no name can open a tag, end an attribute or start a script.

#include <cstddef>
#include <string>
#include <string_view>

namespace kerntime::detail {

// Element text or a double-quoted attribute value (the same escaping serves both): invalid UTF-8
// becomes U+FFFD, `& < > " '` become character references, and the control characters HTML
// calls parse errors (C0 other than tab, newline and carriage return; DEL; C1) become U+FFFD.
[[nodiscard]] std::string html_escape(std::string_view text);

// A token for an id built from data that is not text (a state's index, never its name), kept to
// [A-Za-z0-9_-] so it needs no escaping anywhere.
[[nodiscard]] std::string html_id(std::string_view prefix, std::size_t index);

} // namespace kerntime::detail
