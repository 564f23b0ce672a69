// The names kerntime's enums are spelled with in every report, flag and binding: one table per
// enum, read both ways, so a name is written once and reading it back (a JSON result, a flag, a
// Python string) cannot drift from writing it.

#include <array>
#include <optional>
#include <string_view>
#include <utility>

#include "kerntime/counters.hpp"
#include "kerntime/errors.hpp"
#include "kerntime/protocol.hpp"
#include "kerntime/result.hpp"
#include "result/name_table.hpp"

namespace kerntime {
namespace {

using detail::name_of;
using detail::name_table;

constexpr name_table<backend_request, 3> backend_requests{{
    {backend_request::automatic, "auto"},
    {backend_request::cupti, "cupti"},
    {backend_request::events, "events"},
}};
constexpr name_table<stop_reason, 5> stop_reasons{{
    {stop_reason::trial_count, "trial_count"},
    {stop_reason::interval_reached, "interval_reached"},
    {stop_reason::max_trials, "max_trials"},
    {stop_reason::max_time, "max_time"},
    {stop_reason::timer_resolution, "timer_resolution"},
}};

constexpr name_table<counters_status, 3> counters_statuses{{
    {counters_status::not_requested, "not_requested"},
    {counters_status::measured, "measured"},
    {counters_status::unavailable, "unavailable"},
}};

constexpr name_table<headline_metric, 2> headline_metrics{{
    {headline_metric::span, "span"},
    {headline_metric::busy, "busy"},
}};
constexpr name_table<launch_mode, 2> launch_modes{{
    {launch_mode::stream, "stream"},
    {launch_mode::graph, "graph"},
}};
constexpr name_table<timing_backend, 2> timing_backends{{
    {timing_backend::cupti, "cupti"},
    {timing_backend::events, "events"},
}};
constexpr name_table<cupti_mode, 3> cupti_modes{{
    {cupti_mode::none, "none"},
    {cupti_mode::subscribed, "subscribed"},
    {cupti_mode::shared_with_idle_torch_profiler, "shared_with_idle_torch_profiler"},
}};
constexpr name_table<activity_kind, 3> activity_kinds{{
    {activity_kind::kernel, "kernel"},
    {activity_kind::memset, "memset"},
    {activity_kind::memcpy, "memcpy"},
}};
constexpr name_table<error_kind, 11> error_kinds{{
    {error_kind::invalid_argument, "invalid_argument"},
    {error_kind::device_unavailable, "device_unavailable"},
    {error_kind::cupti_unavailable, "cupti_unavailable"},
    {error_kind::benchmark_failed, "benchmark_failed"},
    {error_kind::measurement_invalid, "measurement_invalid"},
    {error_kind::not_capturable, "not_capturable"},
    {error_kind::no_measurement, "no_measurement"},
    {error_kind::other, "error"},
    {error_kind::cuda_fault, "cuda_fault"},
    {error_kind::crashed, "crashed"},
    {error_kind::timed_out, "timed_out"},
}};

} // namespace

KERNTIME_ENUM_NAMES(backend_request, backend_requests, parse_backend_request)
KERNTIME_ENUM_NAMES(headline_metric, headline_metrics, parse_headline_metric)
KERNTIME_ENUM_NAMES(launch_mode, launch_modes, parse_launch_mode)
KERNTIME_ENUM_NAMES(timing_backend, timing_backends, parse_timing_backend)
KERNTIME_ENUM_NAMES(cupti_mode, cupti_modes, parse_cupti_mode)
KERNTIME_ENUM_NAMES(stop_reason, stop_reasons, parse_stop_reason)
KERNTIME_ENUM_NAMES(counters_status, counters_statuses, parse_counters_status)
KERNTIME_ENUM_NAMES(activity_kind, activity_kinds, parse_activity_kind)
KERNTIME_ENUM_NAMES(error_kind, error_kinds, parse_error_kind)

error_kind error_kind_of(const std::exception& e) noexcept {
  const auto* ours = dynamic_cast<const error*>(&e);
  return ours != nullptr ? ours->kind() : error_kind::other;
}

} // namespace kerntime
