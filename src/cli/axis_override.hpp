#pragma once
// `-a` axis overrides: `-a N=1024`, `-a N=[1024,4096]`, `-a N=[1024:4096:1024]`,
// `-a N[pow2]=[10:20:2]`. Parsed in two steps: the text alone, then against the axis it names
// (only the axis knows whether "1e3" is a valid value).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kerntime/benchmark.hpp"

namespace kerntime::detail {

struct axis_range {
  std::string first;
  std::string last;
  std::string step; // empty: 1
};

struct axis_override {
  std::string spec; // as given, for messages
  std::string axis_name;
  bool power_of_two = false;
  std::vector<std::string> values; // a single value or a list
  std::optional<axis_range> range; // or an inclusive range
};

// Throws kerntime::invalid_argument with one line naming the problem and the accepted forms.
[[nodiscard]] axis_override parse_axis_override(std::string_view spec);

// The axis with the override's values. Throws kerntime::invalid_argument when a value does not
// fit the axis (not a number, [pow2] on a float axis, an unknown type name, ...).
[[nodiscard]] axis apply_axis_override(const axis& original, const axis_override& o);

} // namespace kerntime::detail
