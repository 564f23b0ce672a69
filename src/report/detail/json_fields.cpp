#include "report/detail/json_fields.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include "kerntime/errors.hpp"

namespace kerntime::detail {
namespace {

using simdjson::dom::element_type;

std::string_view type_name(element_type type) {
  switch (type) {
  case element_type::ARRAY:
    return "a list";
  case element_type::OBJECT:
    return "an object";
  case element_type::INT64:
  case element_type::UINT64:
  case element_type::DOUBLE:
    return "a number";
  case element_type::STRING:
    return "text";
  case element_type::BOOL:
    return "true or false";
  case element_type::NULL_VALUE:
    return "null";
  }
  return "a JSON value";
}

[[noreturn]] void wrong_type(json_value value, const char* key, std::string_view wanted) {
  throw invalid_argument(fmt::format("{} is {}, not {}", key, type_name(value.type()), wanted));
}

template <typename T> T integer_as(json_value value, const char* key) {
  switch (value.type()) {
  case element_type::INT64: {
    const auto x = std::int64_t(value);
    if (std::in_range<T>(x)) {
      return static_cast<T>(x);
    }
    throw invalid_argument(fmt::format("{} {} is out of range", key, x));
  }
  case element_type::UINT64: {
    const auto x = std::uint64_t(value);
    if (std::in_range<T>(x)) {
      return static_cast<T>(x);
    }
    throw invalid_argument(fmt::format("{} {} is out of range", key, x));
  }
  case element_type::DOUBLE: { // a whole number written as a float (2.0) reads where it fits
    const auto x = double(value);
    const double bound = std::ldexp(1.0, std::numeric_limits<T>::digits);
    if (x < bound && (std::is_signed_v<T> ? x >= -bound : x > -1.0)) {
      return static_cast<T>(x);
    }
    throw invalid_argument(fmt::format("{} {} is out of range", key, x));
  }
  default:
    wrong_type(value, key, "a whole number");
  }
}

} // namespace

json_value field(json_value j, const char* key) {
  json_value value;
  if (j.type() != element_type::OBJECT) {
    wrong_type(j, key, fmt::format("an object holding {}", key));
  }
  if (j.at_key(key).get(value) != simdjson::SUCCESS) {
    throw invalid_argument(fmt::format("{} is missing", key));
  }
  return value;
}

bool has_field(json_value j, const char* key) {
  json_value value;
  return j.type() == element_type::OBJECT && j.at_key(key).get(value) == simdjson::SUCCESS;
}

simdjson::dom::array array_of(json_value value, const char* key) {
  simdjson::dom::array items;
  if (value.get_array().get(items) != simdjson::SUCCESS) {
    wrong_type(value, key, "a list");
  }
  return items;
}

simdjson::dom::object object_of(json_value value, const char* key) {
  simdjson::dom::object fields;
  if (value.get_object().get(fields) != simdjson::SUCCESS) {
    wrong_type(value, key, "an object");
  }
  return fields;
}

void throw_unknown(std::string_view text, const char* key) {
  throw invalid_argument(fmt::format("'{}' is not a known {}", text, key));
}

template <> double read_as<double>(json_value value, const char* key) {
  double x = 0.0;
  if (value.get_double().get(x) != simdjson::SUCCESS) { // integers convert
    wrong_type(value, key, "a number");
  }
  return x;
}

template <> bool read_as<bool>(json_value value, const char* key) {
  bool x = false;
  if (value.get_bool().get(x) != simdjson::SUCCESS) {
    wrong_type(value, key, "true or false");
  }
  return x;
}

template <> std::string read_as<std::string>(json_value value, const char* key) {
  std::string_view x;
  if (value.get_string().get(x) != simdjson::SUCCESS) {
    wrong_type(value, key, "text");
  }
  return std::string(x);
}

template <> int read_as<int>(json_value value, const char* key) {
  return integer_as<int>(value, key);
}
template <> unsigned read_as<unsigned>(json_value value, const char* key) {
  return integer_as<unsigned>(value, key);
}
template <> long read_as<long>(json_value value, const char* key) {
  return integer_as<long>(value, key);
}
template <> unsigned long read_as<unsigned long>(json_value value, const char* key) {
  return integer_as<unsigned long>(value, key);
}

template <> std::vector<double> read_as<std::vector<double>>(json_value value, const char* key) {
  return read_list<double>(value, key,
                           [key](json_value item) { return read_as<double>(item, key); });
}

template <>
std::vector<std::string> read_as<std::vector<std::string>>(json_value value, const char* key) {
  return read_list<std::string>(value, key,
                                [key](json_value item) { return read_as<std::string>(item, key); });
}

} // namespace kerntime::detail
