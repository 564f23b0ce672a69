#pragma once
// The small words of messages: a count with its noun, singular for exactly one ("1 state",
// "0 states"), and a noun with its article ("an int axis", "a float axis"), so no message says
// "1 results" or "a int". Here, in the lowest stage that writes messages, so every stage above
// reaches it (result/name_table.hpp is the same kind of helper).

#include <cstddef>
#include <string>
#include <string_view>

namespace kerntime::detail {

// The noun alone, as a count of n needs it: `plural` when given, else `singular` plus "s".
[[nodiscard]] inline std::string noun_for(std::size_t n, std::string_view singular,
                                          std::string_view plural = {}) {
  if (n == 1) {
    return std::string(singular);
  }
  return plural.empty() ? std::string(singular) + "s" : std::string(plural);
}

// "1 state", "3 states"; `plural` for nouns that do not take an "s" ("pass" -> "passes").
[[nodiscard]] inline std::string counted(std::size_t n, std::string_view singular,
                                         std::string_view plural = {}) {
  return std::to_string(n) + " " + noun_for(n, singular, plural);
}

// "an int", "a float": "an" before a vowel letter. The words kerntime's messages put here (axis
// kinds, units) are read as spelled; a word like "unit" or "hour" would need its own rule.
[[nodiscard]] inline std::string with_article(std::string_view word) {
  const bool vowel =
      !word.empty() && std::string_view("aeiouAEIOU").find(word[0]) != std::string_view::npos;
  return (vowel ? "an " : "a ") + std::string(word);
}

} // namespace kerntime::detail
