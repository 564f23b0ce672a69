// Fuzzes the `-a` axis-spec parser: any text either parses or is refused with
// kerntime::invalid_argument, and a parsed spec applied to an axis of each kind either gives that
// axis's new values or is refused the same way. Anything else escaping is a finding.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "cli/axis_override.hpp"

namespace {

using kerntime::axis;

// One axis of each kind, as a registry would hold them.
const std::vector<axis>& sample_axes() {
  static const std::vector<axis> axes{
      {"N", kerntime::int_axis_values{{1, 2, 3}, false}},
      {"bytes", kerntime::int_axis_values{{1024, 4096}, true}},
      {"f", kerntime::float_axis_values{{0.5, 1.5}}},
      {"mode", kerntime::string_axis_values{{"x", "y"}}},
      {"T", kerntime::type_axis_values{{"float", "double", "__half"}}},
  };
  return axes;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view spec(reinterpret_cast<const char*>(data), size);
  kerntime::detail::axis_override parsed;
  try {
    parsed = kerntime::detail::parse_axis_override(spec);
  } catch (const kerntime::invalid_argument&) {
    return 0;
  }
  for (const auto& original : sample_axes()) {
    try {
      const axis applied = kerntime::detail::apply_axis_override(original, parsed);
      for (std::size_t i = 0; i < applied.size(); ++i) {
        static_cast<void>(applied.value_text(i));
      }
    } catch (const kerntime::invalid_argument&) {
    }
  }
  return 0;
}
