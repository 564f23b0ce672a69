#include "cli/input_text.hpp"

#include <fmt/format.h>

namespace kerntime::detail {

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    // Printable ASCII and UTF-8 bytes pass; C0 controls and DEL are escaped.
    if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  return out;
}

std::string quoted_input(std::string_view text) {
  if (text.size() <= shown_input_length) {
    return "'" + printable(text) + "'";
  }
  return fmt::format("'{}…' ({} characters)", printable(text.substr(0, shown_input_length)),
                     text.size());
}

} // namespace kerntime::detail
