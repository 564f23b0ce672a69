#pragma once
// What a person typed, as an error message shows it: quoted, control and non-ASCII bytes
// escaped (a raw escape sequence must not reach the terminal), and shortened when long (a
// 100,000-character value is not echoed whole).

#include <cstddef>
#include <string>
#include <string_view>

namespace kerntime::detail {

// Values longer than this are cut, with their length said.
inline constexpr std::size_t shown_input_length = 60;

// 'text', or 'first 60 characters…' (100000 characters).
[[nodiscard]] std::string quoted_input(std::string_view text);

// The whole line made printable: control characters become \xNN, so a message stays one line.
[[nodiscard]] std::string printable(std::string_view text);

// An error message as kerntime prints it: one line of printable characters (a CI log shows the
// first line, and a person reads one sentence), cut when it runs long (CLI11 echoes values whole).
[[nodiscard]] std::string message_line(std::string text);

} // namespace kerntime::detail
