// The kerntime JSON read back into the structs it was written from, so a result measured once can
// be compared, merged and re-reported later. The inverse of report/detail/result_json.cpp: every
// key that writer writes is read here (a round-trip test holds them together).

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <type_traits>
#include <utility>

#include "counters/counters_summary.hpp"
#include "kerntime/errors.hpp"
#include "kerntime/report.hpp"
#include "kerntime/statistics.hpp"
#include "result/summarise.hpp"
#include "result/timer_resolution.hpp"
#include "telemetry/throttle_decision.hpp"

namespace kerntime {
namespace {

using json = nlohmann::json;

// nlohmann casts a number to an integer type unchecked: undefined behaviour where it does not fit
// (1e300 as an int), a silent wrap for -1 as a size. An integer is read only where it fits.
template <typename T> bool fits(const json& value) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (value.is_number_unsigned()) {
      return std::in_range<T>(value.get<std::uint64_t>());
    }
    if (value.is_number_integer()) {
      return std::in_range<T>(value.get<std::int64_t>());
    }
    if (value.is_number_float()) {
      const double bound = std::ldexp(1.0, std::numeric_limits<T>::digits);
      const double x = value.get<double>();
      return x < bound && (std::is_signed_v<T> ? x >= -bound : x > -1.0);
    }
  }
  return true; // not a number, or not read as an integer: get() checks the type
}

template <typename T> T value_of(const json& value, const char* key) {
  if (!fits<T>(value)) {
    throw invalid_argument(fmt::format("{} {} is out of range", key, value.dump()));
  }
  return value.get<T>();
}

template <typename T> T integer_of(const json& j, const char* key) {
  return value_of<T>(j.at(key), key);
}

template <typename T> std::optional<T> optional_of(const json& j, const char* key) {
  const json& value = j.at(key);
  return value.is_null() ? std::nullopt : std::optional<T>(value_of<T>(value, key));
}

// Keys added to schema version 1 after its first release: files written before them lack them.
template <typename T> std::optional<T> added_later(const json& j, const char* key) {
  return j.contains(key) ? optional_of<T>(j, key) : std::nullopt;
}

template <typename Enum>
Enum enum_of(const json& j, const char* key, std::optional<Enum> (*parse)(std::string_view)) {
  const auto text = j.at(key).get<std::string>();
  if (auto value = parse(text)) {
    return *value;
  }
  throw invalid_argument(fmt::format("'{}' is not a known {}", text, key));
}

summary_statistics statistics_of(const json& j) {
  return {integer_of<std::size_t>(j, "count"),
          j.at("median_ns").get<double>(),
          j.at("mean_ns").get<double>(),
          j.at("stdev_ns").get<double>(),
          j.at("min_ns").get<double>(),
          j.at("max_ns").get<double>(),
          j.at("p10_ns").get<double>(),
          j.at("p90_ns").get<double>(),
          j.at("cv").get<double>()};
}

protocol protocol_of(const json& j) {
  protocol p;
  p.warmup = integer_of<int>(j, "warmup");
  p.warmup_auto = added_later<bool>(j, "warmup_auto").value_or(false);
  p.trials = integer_of<int>(j, "trials");
  p.stop_at_ci = added_later<double>(j, "stop_at_ci");
  p.max_trials = added_later<int>(j, "max_trials").value_or(p.max_trials);
  p.max_time_s = added_later<double>(j, "max_time_s").value_or(p.max_time_s);
  p.repeats = integer_of<int>(j, "repeats");
  p.flush_l2 = j.at("flush_l2").get<bool>();
  p.flush_bytes = integer_of<std::size_t>(j, "flush_bytes");
  p.input_sets = integer_of<int>(j, "input_sets");
  p.backend = enum_of(j, "backend", parse_backend_request);
  p.metric = enum_of(j, "metric", parse_headline_metric);
  p.telemetry = j.at("telemetry").get<bool>();
  p.throttle_threshold = j.at("throttle_threshold").get<double>();
  p.discard_throttled = j.at("discard_throttled").get<bool>();
  // Files written before graph mode launched every iteration on the stream.
  p.launch = j.contains("launch") ? enum_of(j, "launch", parse_launch_mode) : launch_mode::stream;
  // Files written before the counter pass asked for none.
  p.counters = added_later<bool>(j, "counters").value_or(false);
  p.metrics =
      added_later<std::vector<std::string>>(j, "metrics").value_or(std::vector<std::string>{});
  p.counters_only = added_later<bool>(j, "counters_only").value_or(false);
  return p;
}

device_info device_of(const json& j) {
  return {.ordinal = integer_of<int>(j, "ordinal"),
          .name = j.at("name").get<std::string>(),
          .compute_capability_major = integer_of<int>(j, "compute_capability_major"),
          .compute_capability_minor = integer_of<int>(j, "compute_capability_minor"),
          .multiprocessors = integer_of<int>(j, "multiprocessors"),
          .l2_bytes = integer_of<std::size_t>(j, "l2_bytes"),
          .memory_bytes = integer_of<std::size_t>(j, "memory_bytes"),
          .peak_sm_clock_khz = added_later<int>(j, "peak_sm_clock_khz").value_or(0),
          .memory_clock_khz = added_later<int>(j, "memory_clock_khz").value_or(0),
          .memory_bus_width_bits = added_later<int>(j, "memory_bus_width_bits").value_or(0),
          .driver_version = integer_of<int>(j, "driver_version"),
          .runtime_version = integer_of<int>(j, "runtime_version")};
}

device_telemetry device_telemetry_of(const json& j) {
  device_telemetry t;
  t.available = j.at("available").get<bool>();
  t.unavailable_reason = j.at("unavailable_reason").get<std::string>();
  t.name = j.at("name").get<std::string>();
  t.pci_bus_id = j.at("pci_bus_id").get<std::string>();
  t.uuid = j.at("uuid").get<std::string>();
  t.driver_version = j.at("driver_version").get<std::string>();
  t.max_sm_clock_mhz = optional_of<unsigned>(j, "max_sm_clock_mhz");
  t.max_memory_clock_mhz = optional_of<unsigned>(j, "max_memory_clock_mhz");
  t.application_sm_clock_mhz = optional_of<unsigned>(j, "application_sm_clock_mhz");
  t.application_memory_clock_mhz = optional_of<unsigned>(j, "application_memory_clock_mhz");
  t.power_limit_w = optional_of<double>(j, "power_limit_w");
  t.clocks_locked = optional_of<bool>(j, "clocks_locked");
  return t;
}

std::optional<gpu_snapshot> snapshot_of(const json& j) {
  if (j.is_null()) {
    return std::nullopt;
  }
  gpu_snapshot s;
  s.sm_clock_mhz = optional_of<unsigned>(j, "sm_clock_mhz");
  s.memory_clock_mhz = optional_of<unsigned>(j, "memory_clock_mhz");
  s.power_w = optional_of<double>(j, "power_w");
  s.temperature_c = optional_of<unsigned>(j, "temperature_c");
  s.clock_event_reasons = optional_of<std::uint64_t>(j, "clock_event_reasons");
  s.clock_event_names = j.at("clock_event_names").get<std::vector<std::string>>();
  return s;
}

trial_result trial_of(const json& j) {
  const auto spans = j.at("span_ns").get<std::vector<double>>();
  const auto busies = j.at("busy_ns").get<std::vector<double>>();
  if (spans.size() != busies.size()) {
    throw invalid_argument(fmt::format("a trial holds {} span_ns but {} busy_ns samples",
                                       spans.size(), busies.size()));
  }
  trial_result trial;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    trial.iterations.push_back({spans[i], busies[i]});
  }
  const json& t = j.at("telemetry");
  trial.telemetry.before = snapshot_of(t.at("before"));
  trial.telemetry.after = snapshot_of(t.at("after"));
  trial.telemetry.measured_sm_clock_mhz = optional_of<double>(t, "measured_sm_clock_mhz");
  trial.telemetry.sm_clock_fraction = added_later<double>(t, "sm_clock_fraction");
  trial.telemetry.throttled = t.at("throttled").get<bool>();
  trial.telemetry.throttle_reason = t.at("throttle_reason").get<std::string>();
  // Files from before energy was read per measurement carry per-trial counter readings
  // (energy_mj_before, energy_mj_after, energy_interval_s): their energy block already holds the
  // summary, so the readings are not needed.
  return trial;
}

template <typename T, typename Convert> std::vector<T> list_of(const json& j, Convert convert) {
  std::vector<T> items;
  items.reserve(j.size());
  for (const auto& item : j) {
    items.push_back(convert(item));
  }
  return items;
}

// A file from before "stopping" was written ran the fixed protocol: its summary follows from the
// protocol and the trials.
stopping_summary stopping_of(const json& j, const measurement_result& r) {
  stopping_summary s;
  if (!j.contains("stopping")) {
    s.warmup_iterations = r.protocol_used.warmup;
    s.trials = static_cast<int>(r.trials.size());
    const detail::median_precision precision = detail::precision_of(r.trials_summary.medians);
    s.median_interval = precision.interval;
    s.half_width = precision.half_width;
    return s;
  }
  const json& k = j.at("stopping");
  s.trials = integer_of<int>(k, "trials");
  s.reason = enum_of(k, "stopped_because", parse_stop_reason);
  if (const json& interval = k.at("median_interval"); !interval.is_null()) {
    s.median_interval = confidence_interval{interval.at("low_ns").get<double>(),
                                            interval.at("high_ns").get<double>(),
                                            interval.at("confidence").get<double>()};
  }
  s.half_width = optional_of<double>(k, "half_width");
  s.warmup_iterations = integer_of<int>(k, "warmup_iterations");
  s.warmup_settled = k.at("warmup_settled").get<bool>();
  return s;
}

// A file from before the work was judged has no "work": nothing was judged then (all zero).
work_behaviour work_of(const json& result) {
  work_behaviour w;
  if (!result.contains("work")) {
    return w;
  }
  const json& j = result.at("work");
  w.synchronizing_iterations = integer_of<int>(j, "synchronizing_iterations");
  w.synchronizing_calls = j.at("synchronizing_calls").get<std::vector<std::string>>();
  w.host_gap_iterations = integer_of<int>(j, "host_gap_iterations");
  w.judged_iterations = integer_of<int>(j, "judged_iterations");
  w.longest_host_gap_ns = j.at("longest_host_gap_ns").get<double>();
  w.rotation_added_kernels = j.at("rotation_added_kernels").get<std::vector<std::string>>();
  w.queue_chunk_iterations = integer_of<int>(j, "queue_chunk_iterations");
  w.queue_stalls = integer_of<int>(j, "queue_stalls");
  w.launch_queue_depth = integer_of<int>(j, "launch_queue_depth");
  return w;
}

// A file from before the phases were timed has none: all zero.
host_phases host_phases_of(const json& result) {
  host_phases p;
  if (!result.contains("host_phases_seconds")) {
    return p;
  }
  const json& j = result.at("host_phases_seconds");
  for (const auto& [name, field] : host_phase_names) {
    p.*field = j.at(std::string(name)).get<double>();
  }
  return p;
}

// A file from before energy was read has none: unavailable, and why.
energy_summary energy_of(const json& result) {
  energy_summary e;
  if (!result.contains("energy")) {
    e.unavailable_reason = "not recorded (the file was written before kerntime read energy)";
    return e;
  }
  const json& j = result.at("energy");
  e.available = j.at("available").get<bool>();
  e.unavailable_reason = j.at("unavailable_reason").get<std::string>();
  e.joules_per_iteration = optional_of<double>(j, "joules_per_iteration");
  e.average_watts = optional_of<double>(j, "average_watts");
  e.window_s = added_later<double>(j, "window_s");
  e.window_iterations = added_later<std::size_t>(j, "window_iterations").value_or(0);
  return e;
}

// null is a value CUPTI could not evaluate (NaN, which JSON cannot hold).
std::map<std::string, double> metric_values_of(const json& j) {
  std::map<std::string, double> values;
  for (const auto& [name, value] : j.items()) {
    values[name] = value.is_null() ? std::numeric_limits<double>::quiet_NaN() : value.get<double>();
  }
  return values;
}

// Only the keys written are set: the others were not derived. Files written before the range
// check have no "implausible": it is read off their metrics as derive_counters does.
counters_derived counters_derived_of(const json& j, const std::map<std::string, double>& metrics) {
  const auto number = [&j](const char* key) {
    return j.contains(key) ? std::optional<double>(j.at(key).get<double>()) : std::nullopt;
  };
  counters_derived d;
  d.dram_bytes = number("dram_bytes");
  d.dram_bytes_per_second = number("dram_bytes_per_second");
  d.dram_fraction_of_peak = number("dram_fraction_of_peak");
  d.dram_percent_of_peak = number("dram_percent_of_peak");
  d.compute_percent_of_peak = number("compute_percent_of_peak");
  if (j.contains("bound")) {
    d.bound = enum_of(j, "bound", parse_roofline_bound);
  }
  d.implausible = j.contains("implausible") ? j.at("implausible").get<std::vector<std::string>>()
                                            : detail::implausible_counters(metrics);
  return d;
}

// A file from before the counter pass has no "counters": none were requested. A not-requested
// block holds its status alone, an unavailable one its reason too.
counters_summary counters_of(const json& result) {
  counters_summary c;
  if (!result.contains("counters")) {
    return c;
  }
  const json& j = result.at("counters");
  c.status = enum_of(j, "status", parse_counters_status);
  if (c.status == counters_status::not_requested) {
    return c;
  }
  if (c.status == counters_status::unavailable) {
    c.reason = j.at("reason").get<std::string>();
  }
  c.chip = j.at("chip").get<std::string>();
  c.metrics = j.at("metrics").get<std::vector<std::string>>();
  c.passes = integer_of<int>(j, "passes");
  c.seconds = j.at("seconds").get<double>();
  c.kernels = list_of<kernel_counters_result>(j.at("kernels"), [](const json& k) {
    auto metrics = metric_values_of(k.at("metrics"));
    auto derived = counters_derived_of(k.at("derived"), metrics);
    return kernel_counters_result{k.at("name").get<std::string>(), integer_of<int>(k, "launches"),
                                  std::move(metrics), std::move(derived)};
  });
  c.metrics_total = metric_values_of(j.at("metrics_total"));
  c.derived = counters_derived_of(j.at("derived"), c.metrics_total);
  c.mismatches = j.at("mismatches").get<std::vector<std::string>>();
  return c;
}

speed_of_light speed_of_light_of(const json& j) {
  speed_of_light sol;
  if (!j.at("precision").is_null()) {
    sol.precision = enum_of(j, "precision", parse_flop_precision);
  }
  sol.peak_flops_per_s = optional_of<double>(j, "peak_flops_per_s");
  sol.peak_bytes_per_s = optional_of<double>(j, "peak_bytes_per_s");
  sol.compute_pct = optional_of<double>(j, "compute_pct");
  sol.memory_pct = optional_of<double>(j, "memory_pct");
  sol.bound = enum_of(j, "bound", parse_roofline_bound);
  sol.roofline_ns = j.at("roofline_ns").get<double>();
  sol.peak_source = j.at("peak_source").get<std::string>();
  if (const json& a = j.at("achievable"); !a.is_null()) {
    sol.achievable = achievable_speed_of_light{
        optional_of<double>(a, "flops_per_s"), optional_of<double>(a, "bytes_per_s"),
        optional_of<double>(a, "compute_pct"), optional_of<double>(a, "memory_pct"),
        a.at("source").get<std::string>()};
  }
  if (j.contains("notes")) {
    sol.notes = j.at("notes").get<std::vector<std::string>>();
  }
  return sol;
}

// Files written before sm_clock_fraction also flagged a trial when NVML named a slowdown reason
// (sw_power_cap at 99 % of the maximum clock). Their trials are judged again by this version's
// rule, the clock measured on the GPU, so reports and compare of old and new files agree.
void judge_again_by_the_clock(measurement_result& r, const json& trials) {
  std::optional<double> max_mhz;
  if (r.telemetry.max_sm_clock_mhz) {
    max_mhz = *r.telemetry.max_sm_clock_mhz;
  } else if (r.device.peak_sm_clock_khz > 0) {
    max_mhz = r.device.peak_sm_clock_khz / 1000.0;
  }
  for (std::size_t i = 0; i < r.trials.size(); ++i) {
    if (trials[i].at("telemetry").contains("sm_clock_fraction")) {
      continue;
    }
    trial_telemetry& t = r.trials[i].telemetry;
    const detail::throttle_decision decision = detail::decide_throttled(
        t.measured_sm_clock_mhz, max_mhz, r.protocol_used.throttle_threshold);
    t.sm_clock_fraction = decision.sm_clock_fraction;
    t.throttled = decision.throttled;
    t.throttle_reason = decision.reason;
  }
}

measurement_result result_of(const json& j) {
  measurement_result r;
  r.protocol_used = protocol_of(j.at("protocol"));
  r.device = device_of(j.at("device"));
  r.backend = enum_of(j, "timing_backend", parse_timing_backend);
  r.backend_reason = j.at("backend_reason").get<std::string>();
  // Files written before cupti_mode: CUPTI meant kerntime's own subscription.
  r.cupti = j.contains("cupti_mode")
                ? enum_of(j, "cupti_mode", parse_cupti_mode)
                : (r.backend == timing_backend::cupti ? cupti_mode::subscribed : cupti_mode::none);
  r.latency_ns = j.at("latency_ns").get<double>();
  const json& s = j.at("statistics");
  r.stats = statistics_of(s.at("headline"));
  r.span = statistics_of(s.at("span"));
  r.busy = statistics_of(s.at("busy"));
  const json& t = j.at("trial_statistics");
  r.trials_summary.means = t.at("means_ns").get<std::vector<double>>();
  r.trials_summary.medians = t.at("medians_ns").get<std::vector<double>>();
  r.trials_summary.stdev_of_means = t.at("stdev_of_means_ns").get<double>();
  r.trials_summary.cv_of_means = t.at("cv_of_means").get<double>();
  if (!r.trials_summary.means.empty()) { // not written: derived from the means, as summarise does
    const summary_statistics of_means = summarize(r.trials_summary.means);
    r.trials_summary.mean_of_means = of_means.mean;
    r.trials_summary.median_of_means = of_means.median;
  }
  r.trials = list_of<trial_result>(j.at("trials"), trial_of);
  r.kernels = list_of<kernel_summary>(j.at("kernels"), [](const json& k) {
    return kernel_summary{
        k.at("name").get<std::string>(),           enum_of(k, "kind", parse_activity_kind),
        k.at("calls_per_iteration").get<double>(), k.at("mean_ns").get<double>(),
        k.at("median_ns").get<double>(),           k.at("share").get<double>()};
  });
  r.trace = list_of<trace_record>(j.at("trace"), [](const json& e) {
    return trace_record{e.at("name").get<std::string>(), enum_of(e, "kind", parse_activity_kind),
                        integer_of<int>(e, "iteration"), integer_of<std::uint32_t>(e, "stream"),
                        e.at("start_ns").get<double>(),  e.at("end_ns").get<double>()};
  });
  r.telemetry = device_telemetry_of(j.at("device_telemetry"));
  judge_again_by_the_clock(r, j.at("trials"));
  r.energy = energy_of(j);
  r.counters = counters_of(j);
  r.warnings = j.at("warnings").get<std::vector<std::string>>();
  r.work = work_of(j);
  r.wall_seconds = j.at("wall_seconds").get<double>();
  r.phases = host_phases_of(j);
  r.flush_bytes = integer_of<std::size_t>(j, "flush_bytes");
  r.flush_median_ns = j.at("flush_median_ns").get<double>();
  // Files written before results recorded the timer's step: read off their spans, as summarise
  // does.
  r.timer_resolution_ns = added_later<double>(j, "timer_resolution_ns")
                              .value_or(detail::timer_step_ns(detail::all_spans(r.trials)));
  r.stopping = stopping_of(j, r);
  return r;
}

benchmark_run run_of(const json& j) {
  benchmark_run run;
  run.benchmark = j.at("benchmark").get<std::string>();
  run.state_name = j.at("state_name").get<std::string>();
  for (const auto& axis : j.at("axes")) {
    run.axes.emplace_back(axis.at("name").get<std::string>(), axis.at("value").get<std::string>());
  }
  run.status = enum_of(j, "status", parse_run_status);
  if (!j.at("error_kind").is_null()) {
    run.error = enum_of(j, "error_kind", parse_error_kind);
  }
  run.message = j.at("message").is_null() ? std::string() : j.at("message").get<std::string>();
  run.flops = optional_of<double>(j, "flops_per_iteration");
  run.bytes = optional_of<double>(j, "bytes_per_iteration");
  if (const auto precision = added_later<std::string>(j, "flops_precision")) {
    run.flops_precision = parse_flop_precision(*precision);
    if (!run.flops_precision) {
      throw invalid_argument(fmt::format("'{}' is not a known flops_precision", *precision));
    }
  }
  if (j.contains("speed_of_light") && !j.at("speed_of_light").is_null()) {
    run.sol = speed_of_light_of(j.at("speed_of_light"));
  }
  run.wall_seconds = added_later<double>(j, "wall_seconds").value_or(0.0);
  if (j.contains("device") && !j.at("device").is_null()) {
    const json& d = j.at("device");
    run.device = run_device{d.at("host").get<std::string>(), integer_of<int>(d, "ordinal"),
                            d.at("name").get<std::string>(), d.at("uuid").get<std::string>()};
  }
  run.plan_index = added_later<std::size_t>(j, "plan_index");
  if (!j.at("result").is_null()) {
    run.result = result_of(j.at("result"));
  }
  return run;
}

run_context context_of(const json& j) {
  run_context c;
  c.kerntime_version = j.at("kerntime_version").get<std::string>();
  c.command_line = j.at("command_line").get<std::string>();
  c.host_name = j.at("host_name").get<std::string>();
  c.date = j.at("date").get<std::string>();
  if (!j.at("device").is_null()) {
    c.device = device_of(j.at("device"));
  }
  c.telemetry = device_telemetry_of(j.at("telemetry"));
  if (j.contains("shard") && !j.at("shard").is_null()) {
    const json& s = j.at("shard");
    c.shard = shard_spec{integer_of<int>(s, "index"), integer_of<int>(s, "count")};
    if (c.shard->count < 1 || c.shard->index < 0 || c.shard->index >= c.shard->count) {
      throw invalid_argument(fmt::format("shard {}/{} is not a shard: INDEX/COUNT needs "
                                         "0 <= INDEX < COUNT",
                                         c.shard->index, c.shard->count));
    }
  }
  c.plan_states = added_later<std::size_t>(j, "plan_states");
  return c;
}

} // namespace

result_set parse_result_set(std::string_view text, std::string_view source) {
  const auto fail = [&](std::string_view problem) {
    return invalid_argument(fmt::format("{} is not a kerntime result set: {}; write one with "
                                        "`kerntime run --json FILE` or the pytest plugin's "
                                        "--kerntime-json",
                                        source, problem));
  };
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception& e) {
    throw fail(fmt::format("not JSON ({})", e.what()));
  }
  if (!document.is_object() || !document.contains("json_schema_version")) {
    throw fail("it has no json_schema_version");
  }
  const json& version = document.at("json_schema_version");
  if (!version.is_number_integer() || version.get<std::int64_t>() != json_schema_version) {
    throw fail(fmt::format("its json_schema_version is {}, this kerntime reads version {}",
                           version.dump(), json_schema_version));
  }
  try {
    result_set set;
    set.context = context_of(document.at("context"));
    set.runs = list_of<benchmark_run>(document.at("runs"), run_of);
    return set;
  } catch (const json::exception& e) {
    throw fail(e.what());
  } catch (const invalid_argument& e) {
    throw fail(e.what());
  }
}

benchmark_run parse_run_json(std::string_view text, std::string_view source) {
  try {
    return run_of(json::parse(text));
  } catch (const json::exception& e) {
    throw invalid_argument(fmt::format("{} is not a kerntime run: {}", source, e.what()));
  } catch (const invalid_argument& e) {
    throw invalid_argument(fmt::format("{} is not a kerntime run: {}", source, e.what()));
  }
}

result_set read_result_set(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw invalid_argument(fmt::format("cannot read {}: no such file, or not readable; give the "
                                       "path of a kerntime JSON (kerntime run --json FILE)",
                                       path.string()));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_result_set(text.str(), path.string());
}

} // namespace kerntime
