#include "cli/input_text.hpp"

#include <fmt/format.h>

#include <algorithm>

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

// Values are shortened where kerntime quotes them; a message that still runs long is cut here.
constexpr std::size_t longest_message = 480;

std::string message_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  while (!text.empty() && text.back() == ' ') {
    text.pop_back();
  }
  if (text.size() > longest_message) {
    text = fmt::format("{}… (message of {} characters cut)", text.substr(0, longest_message),
                       text.size());
  }
  return printable(text);
}

} // namespace kerntime::detail
