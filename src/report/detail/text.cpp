#include "report/detail/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

namespace kerntime::detail {
namespace {

constexpr std::string_view replacement_character = "\xEF\xBF\xBD"; // U+FFFD
constexpr std::string_view ellipsis = "\xE2\x80\xA6";              // U+2026

// One code point starting at text[pos]: its value and byte length, or nullopt for an invalid
// sequence (overlong, surrogate, beyond U+10FFFF, truncated), which the caller skips one byte of.
struct code_point {
  char32_t value;
  std::size_t length;
};

std::optional<code_point> decode_at(std::string_view text, std::size_t pos) {
  const auto lead = static_cast<unsigned char>(text[pos]);
  if (lead < 0x80) {
    return code_point{lead, 1};
  }
  std::size_t length = 0;
  char32_t value = 0;
  char32_t minimum = 0;
  if ((lead & 0xE0) == 0xC0) {
    length = 2, value = lead & 0x1F, minimum = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, value = lead & 0x0F, minimum = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, value = lead & 0x07, minimum = 0x10000;
  } else {
    return std::nullopt;
  }
  if (pos + length > text.size()) {
    return std::nullopt;
  }
  for (std::size_t i = 1; i < length; ++i) {
    const auto next = static_cast<unsigned char>(text[pos + i]);
    if ((next & 0xC0) != 0x80) {
      return std::nullopt;
    }
    value = (value << 6) | (next & 0x3F);
  }
  if (value < minimum || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) {
    return std::nullopt;
  }
  return code_point{value, length};
}

// Calls visit(bytes, value) for each code point, with U+FFFD for each invalid byte.
template <typename Visit> void for_each_code_point(std::string_view text, Visit&& visit) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (auto cp = decode_at(text, pos)) {
      visit(text.substr(pos, cp->length), cp->value);
      pos += cp->length;
    } else {
      visit(replacement_character, char32_t{0xFFFD});
      pos += 1;
    }
  }
}

// Newlines and tabs inside a one-line cell or list item become spaces.
bool is_line_break_or_tab(char32_t c) {
  return c == '\n' || c == '\r' || c == '\t';
}

// Other control characters would reach the user's terminal raw.
bool is_other_control(char32_t c) {
  return c < 0x20 || c == 0x7F;
}

} // namespace

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for_each_code_point(text, [&](std::string_view bytes, char32_t) { out += bytes; });
  return out;
}

std::string shorten_middle(std::string_view text, std::size_t max_code_points) {
  std::string clean = valid_utf8(text);
  std::vector<std::size_t> starts; // byte offset of each code point
  for (std::size_t pos = 0; pos < clean.size();) {
    starts.push_back(pos);
    pos += decode_at(clean, pos)->length;
  }
  if (starts.size() <= max_code_points || max_code_points < 3) {
    return clean;
  }
  // Keep two thirds at the head (the function name and first template arguments) and the rest
  // at the tail (the parameter list), which is what tells instantiations apart.
  const std::size_t kept = max_code_points - 1;
  const std::size_t head = kept * 2 / 3;
  const std::size_t tail = kept - head;
  std::string out = clean.substr(0, starts[head]);
  out += ellipsis;
  out += clean.substr(starts[starts.size() - tail]);
  return out;
}

namespace {

// `text` with every template argument list nested `template_depth` or deeper folded to "<…>" and,
// when `fold_parameters`, the parameter list folded to "(…)". "(anonymous namespace)" stays.
std::string fold_kernel_name(std::string_view text, int template_depth, bool fold_parameters) {
  constexpr std::string_view anonymous = "(anonymous namespace)";
  std::string folded;
  int angle = 0;
  int paren = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool hidden = angle >= template_depth || (fold_parameters && paren > 0);
    if (paren == 0 && text.substr(i, anonymous.size()) == anonymous) {
      if (!hidden) {
        folded += anonymous;
      }
      i += anonymous.size() - 1;
      continue;
    }
    if (c == '<' && paren == 0) {
      ++angle;
      if (!hidden) {
        folded += angle == template_depth ? std::string("<") + std::string(ellipsis) : "<";
      }
    } else if (c == '>' && paren == 0 && angle > 0) {
      --angle;
      if (angle < template_depth && !(fold_parameters && paren > 0)) {
        folded += '>';
      }
    } else if (c == '(' && angle == 0 && fold_parameters) {
      if (paren++ == 0) {
        folded += "(";
        folded += ellipsis;
      }
    } else if (c == ')' && angle == 0 && fold_parameters && paren > 0) {
      if (--paren == 0) {
        folded += ')';
      }
    } else if (!hidden) {
      folded += c;
    }
  }
  return folded;
}

std::size_t code_points(std::string_view text) {
  std::size_t n = 0;
  for_each_code_point(text, [&](std::string_view, char32_t) { ++n; });
  return n;
}

} // namespace

std::string shorten_kernel_name(std::string_view text, std::size_t max_code_points) {
  const std::string clean = valid_utf8(text);
  std::string name = clean;
  // Fold the least telling parts first: the parameters, then ever shallower template arguments.
  for (int depth = 3; depth >= 1 && code_points(name) > max_code_points; --depth) {
    name = fold_kernel_name(clean, depth, true);
  }
  return shorten_middle(name, max_code_points);
}

std::string markdown_code_span(std::string_view text, std::size_t max_code_points) {
  std::string body;
  for_each_code_point(shorten_middle(text, max_code_points),
                      [&](std::string_view bytes, char32_t c) {
                        if (is_line_break_or_tab(c)) {
                          body += ' ';
                        } else if (is_other_control(c)) {
                          body += replacement_character;
                        } else if (c == '|') {
                          body += "\\|"; // GFM splits cells before it parses code spans
                        } else {
                          body += bytes;
                        }
                      });
  std::size_t longest_run = 0;
  std::size_t run = 0;
  for (char c : body) {
    run = c == '`' ? run + 1 : 0;
    longest_run = std::max(longest_run, run);
  }
  const std::string fence(longest_run + 1, '`');
  // A space on each side keeps a leading or trailing backtick apart from the fence; CommonMark
  // strips exactly one such space.
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string markdown_text(std::string_view text) {
  std::string out;
  for_each_code_point(text, [&](std::string_view bytes, char32_t c) {
    if (is_line_break_or_tab(c)) {
      out += ' ';
      return;
    }
    if (is_other_control(c)) {
      out += replacement_character;
      return;
    }
    switch (c) {
    case '\\':
    case '`':
    case '*':
    case '<':
    case '>':
    case '|':
    case '[':
    case ']':
      out += '\\';
      break;
    default:
      break;
    }
    out += bytes;
  });
  return out;
}

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for_each_code_point(text, [&](std::string_view bytes, char32_t c) {
    switch (c) {
    case '&':
      out += "&amp;";
      return;
    case '<':
      out += "&lt;";
      return;
    case '>':
      out += "&gt;";
      return;
    case '"':
      out += "&quot;";
      return;
    case '\'':
      out += "&apos;";
      return;
    case '\t':
      out += "&#9;";
      return;
    case '\n':
      out += "&#10;";
      return;
    case '\r':
      out += "&#13;";
      return;
    default:
      break;
    }
    const bool forbidden = c < 0x20 || c == 0xFFFE || c == 0xFFFF;
    out += forbidden ? replacement_character : bytes;
  });
  return out;
}

std::string csv_field(std::string_view raw) {
  std::string text = valid_utf8(raw);
  const bool needs_quotes = text.find_first_of(",\"\r\n") != std::string_view::npos ||
                            (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!needs_quotes) {
    return text;
  }
  std::string out = "\"";
  for (char c : text) {
    out += c;
    if (c == '"') {
      out += '"';
    }
  }
  out += '"';
  return out;
}

std::string error_kind_text(const benchmark_run& run) {
  return run.error ? std::string(to_string(*run.error)) : std::string();
}

std::string xml_properties(const std::vector<std::pair<std::string, std::string>>& properties,
                           std::string_view indent) {
  if (properties.empty()) {
    return {};
  }
  std::string out = fmt::format("{}<properties>\n", indent);
  for (const auto& [name, value] : properties) {
    out += fmt::format("{}  <property name=\"{}\" value=\"{}\"/>\n", indent, xml_escape(name),
                       xml_escape(value));
  }
  out += fmt::format("{}</properties>\n", indent);
  return out;
}

} // namespace kerntime::detail
