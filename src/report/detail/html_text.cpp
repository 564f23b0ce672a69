#include "report/detail/html_text.hpp"

#include "report/detail/text.hpp"

namespace kerntime::detail {
namespace {

constexpr std::string_view replacement_character = "\xEF\xBF\xBD"; // U+FFFD

} // namespace

std::string html_escape(std::string_view text) {
  const std::string valid = valid_utf8(text);
  std::string out;
  out.reserve(valid.size() + valid.size() / 8);
  for (std::size_t i = 0; i < valid.size(); ++i) {
    const auto c = static_cast<unsigned char>(valid[i]);
    switch (c) {
    case '&':
      out += "&amp;";
      continue;
    case '<':
      out += "&lt;";
      continue;
    case '>':
      out += "&gt;";
      continue;
    case '"':
      out += "&quot;";
      continue;
    case '\'':
      out += "&#39;";
      continue;
    case '\t':
    case '\n':
    case '\r':
      out += static_cast<char>(c);
      continue;
    default:
      break;
    }
    if (c < 0x20 || c == 0x7F) {
      out += replacement_character;
    } else if (c == 0xC2 && i + 1 < valid.size() &&
               static_cast<unsigned char>(valid[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(valid[i + 1]) <= 0x9F) {
      out += replacement_character; // U+0080..U+009F, the C1 controls
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string html_id(std::string_view prefix, std::size_t index) {
  std::string id;
  for (const char c : prefix) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_';
    id += plain ? c : '_';
  }
  return id + '-' + std::to_string(index);
}

} // namespace kerntime::detail
