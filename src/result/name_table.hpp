#pragma once
// An enum's names as one table read both ways, so a name is written once and reading it back (a
// JSON result, a flag, a Python string) cannot drift from writing it. Each stage keeps the tables
// of its own enums (result/enum_names.cpp, compare/compare_names.cpp).

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace kerntime::detail {

template <typename Enum, std::size_t N>
using name_table = std::array<std::pair<Enum, std::string_view>, N>;

template <typename Enum, std::size_t N>
std::string_view name_of(const name_table<Enum, N>& table, Enum value) {
  for (const auto& [entry, name] : table) {
    if (entry == value) {
      return name;
    }
  }
  return "?";
}

template <typename Enum, std::size_t N>
std::optional<Enum> value_named(const name_table<Enum, N>& table, std::string_view text) {
  for (const auto& [entry, name] : table) {
    if (name == text) {
      return entry;
    }
  }
  return std::nullopt;
}

} // namespace kerntime::detail

// An enum's to_string and parse function, both read from its table. (An enum or a function name
// cannot be parenthesized, hence the NOLINT.)
// NOLINTBEGIN(bugprone-macro-parentheses)
#define KERNTIME_ENUM_NAMES(Enum, table, parse)                                                    \
  std::string_view to_string(Enum value) {                                                         \
    return detail::name_of(table, value);                                                          \
  }                                                                                                \
  std::optional<Enum> parse(std::string_view text) {                                               \
    return detail::value_named(table, text);                                                       \
  }
// NOLINTEND(bugprone-macro-parentheses)
