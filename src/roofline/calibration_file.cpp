#include "roofline/calibration_file.hpp"

#include <cmath>
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kerntime/errors.hpp"
#include "roofline/text_file.hpp"

namespace kerntime::detail {
namespace {

using json = nlohmann::ordered_json;

template <typename T> json optional_value(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

double rate_of(const json& value, std::string_view what) {
  const double x = value.get<double>();
  if (!(x > 0) || !std::isfinite(x)) {
    throw invalid_argument(fmt::format("{} is {}, not a rate above 0", what, value.dump()));
  }
  return x;
}

} // namespace

std::string calibration_to_json(const calibration& c) {
  json gemm = json::object();
  for (const auto& [precision, figure] : c.gemm_flops_per_s) {
    gemm[std::string(to_string(precision))] = figure;
  }
  json skipped = json::object();
  for (const auto& [precision, why] : c.not_measured) {
    skipped[std::string(to_string(precision))] = why;
  }
  const json document = {
      {"kerntime_calibration_version", calibration_version},
      {"kerntime_version", c.kerntime_version},
      {"date", c.date},
      {"device",
       {{"name", c.device_name},
        {"uuid", c.device_uuid},
        {"compute_capability",
         fmt::format("{}.{}", c.compute_capability_major, c.compute_capability_minor)},
        {"multiprocessors", c.multiprocessors}}},
      {"sm_clock_mhz", optional_value(c.sm_clock_mhz)},
      {"copy", {{"bytes", c.copy_bytes}, {"bytes_per_s", optional_value(c.copy_bytes_per_s)}}},
      {"gemm", {{"size", c.gemm_size}, {"flops_per_s", gemm}, {"not_measured", skipped}}},
      {"wall_seconds", c.wall_seconds}};
  return document.dump(2, ' ', false, nlohmann::detail::error_handler_t::replace) + "\n";
}

calibration parse_calibration(std::string_view text, std::string_view source) {
  const auto fail = [&](std::string_view problem) {
    return invalid_argument(fmt::format("--calibration {} is not a kerntime calibration: {}; "
                                        "write one with `kerntime calibrate --output FILE`",
                                        source, problem));
  };
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception& e) {
    throw fail(fmt::format("not JSON ({})", e.what()));
  }
  if (!document.is_object() || !document.contains("kerntime_calibration_version")) {
    throw fail("it has no kerntime_calibration_version");
  }
  if (const json& v = document.at("kerntime_calibration_version");
      !v.is_number_integer() || v.get<long long>() != calibration_version) {
    throw fail(fmt::format("its version is {}, this kerntime reads version {}", v.dump(),
                           calibration_version));
  }
  try {
    calibration c;
    c.kerntime_version = document.at("kerntime_version").get<std::string>();
    c.date = document.at("date").get<std::string>();
    const json& d = document.at("device");
    c.device_name = d.at("name").get<std::string>();
    c.device_uuid = d.at("uuid").get<std::string>();
    const auto cc = d.at("compute_capability").get<std::string>();
    if (std::sscanf(cc.c_str(), "%d.%d", &c.compute_capability_major,
                    &c.compute_capability_minor) != 2) {
      throw invalid_argument(fmt::format("compute_capability \"{}\" is not MAJOR.MINOR", cc));
    }
    c.multiprocessors = d.at("multiprocessors").get<int>();
    if (!document.at("sm_clock_mhz").is_null()) {
      c.sm_clock_mhz = document.at("sm_clock_mhz").get<double>();
    }
    const json& copy = document.at("copy");
    c.copy_bytes = copy.at("bytes").get<std::size_t>();
    if (!copy.at("bytes_per_s").is_null()) {
      c.copy_bytes_per_s = rate_of(copy.at("bytes_per_s"), "copy.bytes_per_s");
    }
    const json& gemm = document.at("gemm");
    c.gemm_size = gemm.at("size").get<long long>();
    for (const auto& [name, figure] : gemm.at("flops_per_s").items()) {
      const auto precision = parse_flop_precision(name);
      if (!precision) {
        throw invalid_argument(
            fmt::format("gemm precision \"{}\" is not one of {}", name, flop_precision_names()));
      }
      c.gemm_flops_per_s[*precision] = rate_of(figure, "gemm.flops_per_s." + name);
    }
    for (const auto& [name, why] : gemm.at("not_measured").items()) {
      if (const auto precision = parse_flop_precision(name)) {
        c.not_measured[*precision] = why.get<std::string>();
      }
    }
    c.wall_seconds = document.at("wall_seconds").get<double>();
    return c;
  } catch (const json::exception& e) {
    throw fail(e.what());
  } catch (const invalid_argument& e) {
    throw fail(e.what());
  }
}

calibration read_calibration(const std::filesystem::path& path) {
  return parse_calibration(read_text_file(path, "--calibration"), path.string());
}

std::string calibration_source(const calibration& c, std::string_view path) {
  return fmt::format("{} ({}, {})", path, c.device_name, c.date);
}

} // namespace kerntime::detail
