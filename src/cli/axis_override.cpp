#include "cli/axis_override.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <type_traits>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "result/message_words.hpp"

namespace kerntime::detail {
namespace {

// Wide enough for any difference of two int64 values; a GCC and Clang extension (__extension__:
// no -Wpedantic warning for it; `using` takes no __extension__).
__extension__ typedef __int128 int128; // NOLINT(modernize-use-using)

constexpr std::string_view accepted_forms =
    "write -a NAME=VALUE, -a NAME=[V1,V2,...], -a NAME=[FIRST:LAST:STEP] or "
    "-a NAME[pow2]=[FIRST:LAST:STEP]";

// A range would expand to more states than anyone means to run; it is almost surely a typo.
constexpr std::size_t max_axis_values = 10000;

[[noreturn]] void malformed(std::string_view spec, std::string_view problem) {
  throw invalid_argument(
      fmt::format("malformed axis spec '-a {}': {}; {}", spec, problem, accepted_forms));
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) {
    return {};
  }
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto end = text.find(separator, start);
    parts.emplace_back(trim(text.substr(start, end - start)));
    if (end == std::string_view::npos) {
      return parts;
    }
    start = end + 1;
  }
}

template <typename Number> std::optional<Number> parse_number(std::string_view text) {
  Number value{};
  const auto* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc{} || ptr != end) {
    return std::nullopt;
  }
  return value;
}

[[noreturn]] void bad_value(const axis_override& o, const axis& a, std::string_view value,
                            std::string_view expected) {
  throw invalid_argument(fmt::format("axis spec '-a {}': '{}' is not {} (axis '{}' is {} axis)",
                                     o.spec, value, expected, a.name,
                                     detail::with_article(to_string(a.kind()))));
}

std::int64_t parse_int(const axis_override& o, const axis& a, std::string_view text) {
  if (auto v = parse_number<std::int64_t>(text)) {
    return *v;
  }
  bad_value(o, a, text, "an integer");
}

double parse_float(const axis_override& o, const axis& a, std::string_view text) {
  if (auto v = parse_number<double>(text); v && std::isfinite(*v)) {
    return *v;
  }
  bad_value(o, a, text, "a finite number");
}

// A range's bounds as given, checked: a positive step, FIRST <= LAST, at most max_axis_values.
template <typename Number> struct checked_range {
  Number first;
  Number last;
  Number step;
};

// The values of a list (`-a N=[1,2]`), or the checked bounds of a range (`-a N=[1:9:2]`).
// `step_rule` and `example` say what a step must be for this kind of number.
template <typename Number, typename Parse>
std::variant<std::vector<Number>, checked_range<Number>>
values_or_range(const axis_override& o, Parse parse, std::string_view step_rule,
                std::string_view example) {
  if (!o.range) {
    std::vector<Number> values;
    for (const auto& text : o.values) {
      values.push_back(parse(text));
    }
    return values;
  }
  const checked_range<Number> r{parse(o.range->first), parse(o.range->last),
                                o.range->step.empty() ? Number{1} : parse(o.range->step)};
  if (!(r.step > 0)) {
    throw invalid_argument(fmt::format("axis spec '-a {}': the step must be {} (got {}); e.g. {}",
                                       o.spec, step_rule, r.step, example));
  }
  if (r.first > r.last) {
    throw invalid_argument(
        fmt::format("axis spec '-a {}': the range's first value {} is above its last value {}; "
                    "write {} with FIRST <= LAST",
                    o.spec, r.first, r.last,
                    std::is_integral_v<Number> ? "[FIRST:LAST]" : "[FIRST:LAST:STEP]"));
  }
  // The span in a wider type: LAST - FIRST overflows int64 for bounds of opposite signs.
  using wide = std::conditional_t<std::is_integral_v<Number>, int128, double>;
  if ((static_cast<wide>(r.last) - static_cast<wide>(r.first)) / static_cast<wide>(r.step) >=
      static_cast<wide>(max_axis_values)) {
    throw invalid_argument(
        fmt::format("axis spec '-a {}': the range has more than {} values; use a larger step",
                    o.spec, max_axis_values));
  }
  return r;
}

std::vector<std::int64_t> int_values(const axis_override& o, const axis& a) {
  auto given = values_or_range<std::int64_t>(
      o, [&](std::string_view text) { return parse_int(o, a, text); }, "at least 1", "[10:20:2]");
  if (auto* list = std::get_if<std::vector<std::int64_t>>(&given)) {
    return std::move(*list);
  }
  const auto r = std::get<checked_range<std::int64_t>>(given);
  // From the index, in the wider type: no intermediate value overflows (the count is bounded).
  const auto count = static_cast<std::size_t>(
      (static_cast<int128>(r.last) - static_cast<int128>(r.first)) / r.step + 1);
  std::vector<std::int64_t> values;
  values.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    values.push_back(
        static_cast<std::int64_t>(static_cast<int128>(r.first) + static_cast<int128>(i) * r.step));
  }
  return values;
}

std::vector<double> float_values(const axis_override& o, const axis& a) {
  auto given = values_or_range<double>(
      o, [&](std::string_view text) { return parse_float(o, a, text); }, "above 0", "[0.5:2:0.5]");
  if (auto* list = std::get_if<std::vector<double>>(&given)) {
    return std::move(*list);
  }
  const auto r = std::get<checked_range<double>>(given);
  // The count from the span (bounded by values_or_range); the slack keeps `last` in the range
  // despite rounding. Values are computed from the index, not accumulated, so 0.1 steps do not
  // drift.
  const auto count = static_cast<std::size_t>(std::floor((r.last - r.first) / r.step + 1e-9)) + 1;
  std::vector<double> values;
  values.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const double v = r.first + static_cast<double>(i) * r.step;
    // A step below the values' precision repeats a value (1e17 + 1 == 1e17 in a double).
    if (!values.empty() && !(v > values.back())) {
      throw invalid_argument(fmt::format(
          "axis spec '-a {}': the step {} is below the precision of a double near {}, so the "
          "range repeats the value {}; use a step of at least {}",
          o.spec, r.step, v, v, std::nextafter(v, HUGE_VAL) - v));
    }
    values.push_back(v);
  }
  return values;
}

} // namespace

axis_override parse_axis_override(std::string_view spec) {
  axis_override o;
  o.spec = std::string(spec);
  const auto equals = spec.find('=');
  if (equals == std::string_view::npos) {
    malformed(spec, "missing '='");
  }
  std::string_view name = trim(spec.substr(0, equals));
  const std::string_view value = trim(spec.substr(equals + 1));

  if (const auto open = name.find('['); open != std::string_view::npos) {
    const std::string_view flag = name.substr(open);
    if (flag != "[pow2]") {
      malformed(spec, fmt::format("unknown flag '{}' after the axis name (the only flag is [pow2])",
                                  flag));
    }
    o.power_of_two = true;
    name = trim(name.substr(0, open));
  }
  if (name.empty()) {
    malformed(spec, "the axis name is empty");
  }
  if (name.find_first_of("]:,") != std::string_view::npos) {
    malformed(spec, fmt::format("'{}' is not an axis name", name));
  }
  o.axis_name = std::string(name);

  if (value.empty()) {
    malformed(spec, "no value after '='");
  }
  if (value.front() != '[') {
    if (value.find_first_of("[]") != std::string_view::npos) {
      malformed(spec, fmt::format("unbalanced brackets in '{}'", value));
    }
    o.values.emplace_back(value);
    return o;
  }
  if (value.back() != ']') {
    malformed(spec, "missing ']' at the end of the list");
  }
  const std::string_view inside = trim(value.substr(1, value.size() - 2));
  if (inside.find_first_of("[]") != std::string_view::npos) {
    malformed(spec, "nested brackets");
  }
  if (inside.empty()) {
    malformed(spec, "the list is empty");
  }
  if (inside.find(':') != std::string_view::npos) {
    if (inside.find(',') != std::string_view::npos) {
      malformed(spec, "a list mixes ',' and ':'; give either values or one range");
    }
    const auto parts = split(inside, ':');
    if (parts.size() > 3) {
      malformed(spec, "a range has at most three parts, FIRST:LAST:STEP");
    }
    if (std::any_of(parts.begin(), parts.end(), [](const auto& p) { return p.empty(); })) {
      malformed(spec, "a part of the range is empty");
    }
    o.range = axis_range{parts[0], parts[1], parts.size() == 3 ? parts[2] : std::string()};
    return o;
  }
  o.values = split(inside, ',');
  if (std::any_of(o.values.begin(), o.values.end(), [](const auto& v) { return v.empty(); })) {
    malformed(spec, "an empty value in the list");
  }
  return o;
}

namespace {

// Two equal values would give two states of one name: every report keys states by name.
void refuse_duplicates(const axis_override& o, const axis& a) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!seen.insert(a.value_text(i)).second) {
      throw invalid_argument(fmt::format("axis spec '-a {}': the value {} is given twice; each "
                                         "state needs its own value, drop the repeat",
                                         o.spec, a.value_text(i)));
    }
  }
}

} // namespace

axis apply_axis_override(const axis& original, const axis_override& o) {
  if (o.power_of_two && original.kind() != axis_kind::int64) {
    throw invalid_argument(fmt::format("axis spec '-a {}': [pow2] applies to int axes, and '{}' "
                                       "is {} axis; drop [pow2]",
                                       o.spec, original.name,
                                       detail::with_article(to_string(original.kind()))));
  }
  if (o.range && (original.kind() == axis_kind::string || original.kind() == axis_kind::type)) {
    throw invalid_argument(fmt::format("axis spec '-a {}': a range applies to int and float "
                                       "axes; list the values of {} axis '{}' as [A,B]",
                                       o.spec, to_string(original.kind()), original.name));
  }
  axis a{original.name, {}};
  switch (original.kind()) {
  case axis_kind::int64: {
    int_axis_values ints{{}, o.power_of_two};
    if (o.power_of_two) {
      for (const auto exponent : int_values(o, original)) {
        if (exponent < 0 || exponent > 62) {
          throw invalid_argument(fmt::format(
              "axis spec '-a {}': the exponent {} is outside 0..62; [pow2] values are exponents, "
              "e.g. [10:20:2] for 1024..1048576",
              o.spec, exponent));
        }
        ints.values.push_back(std::int64_t{1} << exponent);
      }
    } else {
      ints.values = int_values(o, original);
    }
    a.values = std::move(ints);
    break;
  }
  case axis_kind::float64:
    a.values = float_axis_values{float_values(o, original)};
    break;
  case axis_kind::string:
    a.values = string_axis_values{o.values};
    break;
  case axis_kind::type:
    for (const auto& v : o.values) {
      const auto& types = original.strings();
      if (std::find(types.begin(), types.end(), v) == types.end()) {
        throw invalid_argument(fmt::format("axis spec '-a {}': type axis '{}' has no type '{}'; it "
                                           "has {}",
                                           o.spec, original.name, v, fmt::join(types, ", ")));
      }
    }
    a.values = type_axis_values{o.values};
    break;
  }
  refuse_duplicates(o, a);
  return a;
}

} // namespace kerntime::detail
