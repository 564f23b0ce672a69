// fmt::join over the C++20 standard library (see format.h beside it): kerntime joins only
// ranges of strings into a "{}" argument, so the joined text is made at once.
#pragma once

#include "fmt/format.h"

#include <string>
#include <string_view>

namespace fmt {

template <class Range> std::string join(const Range& items, std::string_view separator) {
  std::string joined;
  bool first = true;
  for (const auto& item : items) {
    if (!first) {
      joined += separator;
    }
    first = false;
    std::format_to(std::back_inserter(joined), "{}", item);
  }
  return joined;
}

} // namespace fmt
