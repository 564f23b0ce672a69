#pragma once
// Fields read out of a parsed JSON value (simdjson's DOM) into kerntime's types. Every refusal is
// kerntime::invalid_argument naming the key: a missing key, a value of the wrong type, and an
// integer that does not fit the field it is read into (-1 as a size, 1e300 as an int).

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kerntime::detail {

using json_value = simdjson::dom::element;

// The value of `key` in the object `j`; refused when `j` is not an object or lacks the key.
[[nodiscard]] json_value field(json_value j, const char* key);
[[nodiscard]] bool has_field(json_value j, const char* key);
// `value` (the value of `key`) as an array or an object.
[[nodiscard]] simdjson::dom::array array_of(json_value value, const char* key);
[[nodiscard]] simdjson::dom::object object_of(json_value value, const char* key);
// "'TEXT' is not a known KEY".
[[noreturn]] void throw_unknown(std::string_view text, const char* key);

// `value` (the value of `key`) as T: double, bool, std::string, an integer type (a whole number,
// or a float that fits), or a std::vector of one of these.
template <typename T> [[nodiscard]] T read_as(json_value value, const char* key);
template <> double read_as<double>(json_value value, const char* key);
template <> bool read_as<bool>(json_value value, const char* key);
template <> std::string read_as<std::string>(json_value value, const char* key);
template <> int read_as<int>(json_value value, const char* key);
template <> unsigned read_as<unsigned>(json_value value, const char* key);
template <> long read_as<long>(json_value value, const char* key);
template <> unsigned long read_as<unsigned long>(json_value value, const char* key);
template <> std::vector<double> read_as<std::vector<double>>(json_value value, const char* key);
template <>
std::vector<std::string> read_as<std::vector<std::string>>(json_value value, const char* key);

// field(j, key) read as T.
template <typename T> [[nodiscard]] T read(json_value j, const char* key) {
  return read_as<T>(field(j, key), key);
}
// null is nullopt.
template <typename T> [[nodiscard]] std::optional<T> read_optional(json_value j, const char* key) {
  const json_value value = field(j, key);
  return value.is_null() ? std::nullopt : std::optional<T>(read_as<T>(value, key));
}
// Keys added to schema version 1 after its first release: files written before them lack them.
template <typename T>
[[nodiscard]] std::optional<T> read_added_later(json_value j, const char* key) {
  return has_field(j, key) ? read_optional<T>(j, key) : std::nullopt;
}
// A block (an object) added likewise: empty in a file written before it.
[[nodiscard]] inline std::optional<json_value> block_added_later(json_value j, const char* key) {
  return has_field(j, key) ? std::optional(field(j, key)) : std::nullopt;
}

// An enum written as its name, parsed by `parse`; refused naming the text and the key.
template <typename Enum>
[[nodiscard]] Enum read_enum(json_value j, const char* key,
                             std::optional<Enum> (*parse)(std::string_view)) {
  const auto text = read<std::string>(j, key);
  if (auto value = parse(text)) {
    return *value;
  }
  throw_unknown(text, key);
}

// The items of the array `value` (the value of `key`), each converted by `convert`.
template <typename T, typename Convert>
[[nodiscard]] std::vector<T> read_list(json_value value, const char* key, Convert convert) {
  const auto items = array_of(value, key);
  std::vector<T> out;
  out.reserve(items.size());
  for (const json_value item : items) {
    out.push_back(convert(item));
  }
  return out;
}

} // namespace kerntime::detail
