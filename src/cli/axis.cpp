#include <fmt/format.h>

#include <type_traits>

#include "kerntime/benchmark.hpp"
#include "result/message_words.hpp"

namespace kerntime {
namespace {

template <typename Values>
[[nodiscard]] const Values& values_of(const axis& a, std::string_view wanted) {
  if (const auto* v = std::get_if<Values>(&a.values)) {
    return *v;
  }
  throw invalid_argument(fmt::format("axis '{}' is {} axis, not {} axis", a.name,
                                     detail::with_article(to_string(a.kind())),
                                     detail::with_article(wanted)));
}

} // namespace

axis_kind axis::kind() const noexcept {
  // The variant's alternatives are listed in axis_kind's order.
  return static_cast<axis_kind>(values.index());
}

std::size_t axis::size() const {
  return std::visit([](const auto& v) { return v.values.size(); }, values);
}

bool axis::power_of_two() const noexcept {
  const auto* v = std::get_if<int_axis_values>(&values);
  return v != nullptr && v->power_of_two;
}

axis_value axis::value(std::size_t i) const {
  return std::visit([i](const auto& v) { return axis_value(v.values.at(i)); }, values);
}

std::string axis::value_text(std::size_t i) const {
  return std::visit(
      [i](const auto& v) -> std::string {
        if constexpr (std::is_same_v<typename std::decay_t<decltype(v.values)>::value_type,
                                     std::string>) {
          return v.values.at(i);
        } else {
          return fmt::format("{}", v.values.at(i));
        }
      },
      values);
}

const std::vector<std::int64_t>& axis::ints() const {
  return values_of<int_axis_values>(*this, "int").values;
}

const std::vector<double>& axis::floats() const {
  return values_of<float_axis_values>(*this, "float").values;
}

const std::vector<std::string>& axis::strings() const {
  if (const auto* types = std::get_if<type_axis_values>(&values)) {
    return types->values;
  }
  return values_of<string_axis_values>(*this, "string or type").values;
}

} // namespace kerntime
