#include <array>
#include <utility>

#include "kerntime/errors.hpp"

namespace kerntime {
namespace {

constexpr std::array<std::pair<error_kind, std::string_view>, 7> names = {{
    {error_kind::invalid_argument, "invalid_argument"},
    {error_kind::device_unavailable, "device_unavailable"},
    {error_kind::cupti_unavailable, "cupti_unavailable"},
    {error_kind::benchmark_failed, "benchmark_failed"},
    {error_kind::measurement_invalid, "measurement_invalid"},
    {error_kind::no_measurement, "no_measurement"},
    {error_kind::other, "error"},
}};

} // namespace

std::string_view to_string(error_kind k) {
  for (const auto& [kind, name] : names) {
    if (kind == k) {
      return name;
    }
  }
  return "error";
}

std::optional<error_kind> parse_error_kind(std::string_view text) {
  for (const auto& [kind, name] : names) {
    if (name == text) {
      return kind;
    }
  }
  return std::nullopt;
}

error_kind error_kind_of(const std::exception& e) noexcept {
  const auto* ours = dynamic_cast<const error*>(&e);
  return ours != nullptr ? ours->kind() : error_kind::other;
}

} // namespace kerntime
