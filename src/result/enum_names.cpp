// The names kerntime's enums are spelled with in every report, flag and binding: one table per
// enum, read both ways, so a name is written once and reading it back (a JSON result, a flag, a
// Python string) cannot drift from writing it.

#include <array>
#include <optional>
#include <string_view>
#include <utility>

#include "kerntime/benchmark.hpp"
#include "kerntime/errors.hpp"
#include "kerntime/protocol.hpp"
#include "kerntime/report.hpp"
#include "kerntime/result.hpp"

namespace kerntime {
namespace {

template <typename Enum, std::size_t N>
using name_table = std::array<std::pair<Enum, std::string_view>, N>;

template <typename Enum, std::size_t N>
std::string_view name_of(const name_table<Enum, N>& table, Enum value) {
  for (const auto& [entry, name] : table) {
    if (entry == value) {
      return name;
    }
  }
  return "?";
}

template <typename Enum, std::size_t N>
std::optional<Enum> value_named(const name_table<Enum, N>& table, std::string_view text) {
  for (const auto& [entry, name] : table) {
    if (name == text) {
      return entry;
    }
  }
  return std::nullopt;
}

constexpr name_table<backend_request, 3> backend_requests{{
    {backend_request::automatic, "auto"},
    {backend_request::cupti, "cupti"},
    {backend_request::events, "events"},
}};
constexpr name_table<headline_metric, 2> headline_metrics{{
    {headline_metric::span, "span"},
    {headline_metric::busy, "busy"},
}};
constexpr name_table<timing_backend, 2> timing_backends{{
    {timing_backend::cupti, "cupti"},
    {timing_backend::events, "events"},
}};
constexpr name_table<activity_kind, 3> activity_kinds{{
    {activity_kind::kernel, "kernel"},
    {activity_kind::memset, "memset"},
    {activity_kind::memcpy, "memcpy"},
}};
constexpr name_table<axis_kind, 4> axis_kinds{{
    {axis_kind::int64, "int"},
    {axis_kind::float64, "float"},
    {axis_kind::string, "string"},
    {axis_kind::type, "type"},
}};
constexpr name_table<run_status, 3> run_statuses{{
    {run_status::ok, "ok"},
    {run_status::failed, "failed"},
    {run_status::skipped, "skipped"},
}};
constexpr name_table<error_kind, 7> error_kinds{{
    {error_kind::invalid_argument, "invalid_argument"},
    {error_kind::device_unavailable, "device_unavailable"},
    {error_kind::cupti_unavailable, "cupti_unavailable"},
    {error_kind::benchmark_failed, "benchmark_failed"},
    {error_kind::measurement_invalid, "measurement_invalid"},
    {error_kind::no_measurement, "no_measurement"},
    {error_kind::other, "error"},
}};

} // namespace

std::string_view to_string(backend_request b) {
  return name_of(backend_requests, b);
}
std::optional<backend_request> parse_backend_request(std::string_view text) {
  return value_named(backend_requests, text);
}
std::string_view to_string(headline_metric m) {
  return name_of(headline_metrics, m);
}
std::optional<headline_metric> parse_headline_metric(std::string_view text) {
  return value_named(headline_metrics, text);
}
std::string_view to_string(timing_backend b) {
  return name_of(timing_backends, b);
}
std::optional<timing_backend> parse_timing_backend(std::string_view text) {
  return value_named(timing_backends, text);
}
std::string_view to_string(activity_kind k) {
  return name_of(activity_kinds, k);
}
std::optional<activity_kind> parse_activity_kind(std::string_view text) {
  return value_named(activity_kinds, text);
}
std::string_view to_string(axis_kind k) {
  return name_of(axis_kinds, k);
}
std::string_view to_string(run_status s) {
  return name_of(run_statuses, s);
}
std::optional<run_status> parse_run_status(std::string_view text) {
  return value_named(run_statuses, text);
}
std::string_view to_string(error_kind k) {
  return name_of(error_kinds, k);
}
std::optional<error_kind> parse_error_kind(std::string_view text) {
  return value_named(error_kinds, text);
}

error_kind error_kind_of(const std::exception& e) noexcept {
  const auto* ours = dynamic_cast<const error*>(&e);
  return ours != nullptr ? ours->kind() : error_kind::other;
}

} // namespace kerntime
