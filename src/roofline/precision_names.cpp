// The names of the precisions and bounds, as every output spells them.

#include <array>
#include <utility>

#include "kerntime/roofline.hpp"

namespace kerntime {
namespace {

constexpr std::array<std::pair<flop_precision, std::string_view>, 10> precision_names{{
    {flop_precision::fp64, "fp64"},
    {flop_precision::fp64_tensor, "fp64_tensor"},
    {flop_precision::fp32, "fp32"},
    {flop_precision::fp16, "fp16"},
    {flop_precision::bf16, "bf16"},
    {flop_precision::tf32_tensor, "tf32_tensor"},
    {flop_precision::fp16_tensor, "fp16_tensor"},
    {flop_precision::bf16_tensor, "bf16_tensor"},
    {flop_precision::fp8_tensor, "fp8_tensor"},
    {flop_precision::int8_tensor, "int8_tensor"},
}};

} // namespace

std::string_view to_string(flop_precision p) {
  for (const auto& [value, name] : precision_names) {
    if (value == p) {
      return name;
    }
  }
  return "unknown";
}

std::optional<flop_precision> parse_flop_precision(std::string_view text) {
  for (const auto& [value, name] : precision_names) {
    if (name == text) {
      return value;
    }
  }
  return std::nullopt;
}

std::string flop_precision_names() {
  std::string names;
  for (const auto& [value, name] : precision_names) {
    names += names.empty() ? std::string(name) : ", " + std::string(name);
  }
  return names;
}

std::string_view to_string(roofline_bound b) {
  return b == roofline_bound::compute ? "compute" : "memory";
}

std::optional<roofline_bound> parse_roofline_bound(std::string_view text) {
  if (text == "compute") {
    return roofline_bound::compute;
  }
  if (text == "memory") {
    return roofline_bound::memory;
  }
  return std::nullopt;
}

} // namespace kerntime
