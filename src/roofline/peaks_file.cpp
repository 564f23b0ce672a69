#include "roofline/peaks_file.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kerntime/errors.hpp"
#include "roofline/text_file.hpp"

namespace kerntime::detail {
namespace {

using json = nlohmann::json;

constexpr std::string_view example =
    R"({"flops_per_s": {"bf16_tensor": 989.4e12}, "bytes_per_s": 4.8e12})";

double positive_number(const json& value, std::string_view what, std::string_view source) {
  if (!value.is_number() || !(value.get<double>() > 0) || !std::isfinite(value.get<double>())) {
    throw invalid_argument(fmt::format("--peaks {}: {} is {}; give a number above 0 (per second), "
                                       "e.g. {}",
                                       source, what, value.dump(), example));
  }
  return value.get<double>();
}

} // namespace

peak_overrides parse_peak_overrides(std::string_view text, std::string_view source) {
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception& e) {
    throw invalid_argument(
        fmt::format("--peaks {} is not JSON ({}); write it as {}", source, e.what(), example));
  }
  if (!document.is_object()) {
    throw invalid_argument(
        fmt::format("--peaks {}: the file holds {}, not an object; write it as {}", source,
                    document.type_name(), example));
  }
  peak_overrides overrides;
  overrides.source = std::string(source);
  for (const auto& [key, value] : document.items()) {
    if (key == "bytes_per_s") {
      overrides.bytes_per_s = positive_number(value, "bytes_per_s", source);
    } else if (key == "flops_per_s") {
      if (!value.is_object()) {
        throw invalid_argument(fmt::format("--peaks {}: flops_per_s must map precisions to "
                                           "numbers, e.g. {}",
                                           source, example));
      }
      for (const auto& [name, figure] : value.items()) {
        const auto precision = parse_flop_precision(name);
        if (!precision) {
          throw invalid_argument(fmt::format("--peaks {}: \"{}\" is not a precision; use one of {}",
                                             source, name, flop_precision_names()));
        }
        overrides.flops_per_s[*precision] =
            positive_number(figure, fmt::format("flops_per_s.{}", name), source);
      }
    } else if (key != "source" && key != "comment") {
      throw invalid_argument(fmt::format("--peaks {}: unknown key \"{}\"; the file holds "
                                         "flops_per_s and bytes_per_s (and an optional comment), "
                                         "e.g. {}",
                                         source, key, example));
    }
  }
  return overrides;
}

peak_overrides read_peak_overrides(const std::filesystem::path& path) {
  return parse_peak_overrides(read_text_file(path, "--peaks"), path.string());
}

std::optional<device_peaks> apply_overrides(std::optional<device_peaks> table,
                                            const peak_overrides& overrides) {
  if (overrides.flops_per_s.empty() && !overrides.bytes_per_s) {
    return table;
  }
  device_peaks peaks = table.value_or(device_peaks{});
  for (const auto& [precision, figure] : overrides.flops_per_s) {
    peaks.flops_per_s[precision] = figure;
  }
  if (overrides.bytes_per_s) {
    peaks.bytes_per_s = overrides.bytes_per_s;
  }
  peaks.source = table ? fmt::format("{}; overridden by {}", table->source, overrides.source)
                       : overrides.source;
  return peaks;
}

} // namespace kerntime::detail
