#include <fmt/format.h>

#include "kerntime/benchmark.hpp"

namespace kerntime {

std::string_view to_string(axis_kind k) {
  switch (k) {
  case axis_kind::int64:
    return "int";
  case axis_kind::float64:
    return "float";
  case axis_kind::string:
    return "string";
  case axis_kind::type:
    return "type";
  }
  return "?";
}

std::size_t axis::size() const {
  switch (kind) {
  case axis_kind::int64:
    return ints.size();
  case axis_kind::float64:
    return floats.size();
  case axis_kind::string:
  case axis_kind::type:
    return strings.size();
  }
  return 0;
}

std::string axis::value_text(std::size_t i) const {
  switch (kind) {
  case axis_kind::int64:
    return fmt::format("{}", ints.at(i));
  case axis_kind::float64:
    return fmt::format("{}", floats.at(i));
  case axis_kind::string:
  case axis_kind::type:
    return strings.at(i);
  }
  return {};
}

} // namespace kerntime
