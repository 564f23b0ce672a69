// The kerntime JSON read back into the structs it was written from, so a result measured once can
// be compared, merged and re-reported later. The inverse of result_json.cpp: every key that writer
// writes is read here (a round-trip test holds them together), and the keys of earlier versions
// of the schema are read as their meaning today.

#include "report/detail/result_from_json.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>

#include "counters/counters_summary.hpp"
#include "kerntime/errors.hpp"
#include "kerntime/statistics.hpp"
#include "report/detail/json_fields.hpp"
#include "result/message_words.hpp"
#include "result/summarise.hpp"
#include "result/timer_resolution.hpp"
#include "telemetry/throttle_decision.hpp"

namespace kerntime::detail {
namespace {

summary_statistics statistics_of(json_value j) {
  return {read<std::size_t>(j, "count"), read<double>(j, "median_ns"), read<double>(j, "mean_ns"),
          read<double>(j, "stdev_ns"),   read<double>(j, "min_ns"),    read<double>(j, "max_ns"),
          read<double>(j, "p10_ns"),     read<double>(j, "p90_ns"),    read<double>(j, "cv")};
}

protocol protocol_of(json_value j) {
  protocol p;
  p.warmup = read<int>(j, "warmup");
  p.warmup_auto = read_added_later<bool>(j, "warmup_auto").value_or(false);
  p.trials = read<int>(j, "trials");
  p.stop_at_ci = read_added_later<double>(j, "stop_at_ci");
  p.max_trials = read_added_later<int>(j, "max_trials").value_or(p.max_trials);
  p.max_time_s = read_added_later<double>(j, "max_time_s").value_or(p.max_time_s);
  p.repeats = read<int>(j, "repeats");
  p.flush_l2 = read<bool>(j, "flush_l2");
  p.flush_bytes = read<std::size_t>(j, "flush_bytes");
  p.input_sets = read<int>(j, "input_sets");
  p.backend = read_enum(j, "backend", parse_backend_request);
  p.metric = read_enum(j, "metric", parse_headline_metric);
  p.telemetry = read<bool>(j, "telemetry");
  p.throttle_threshold = read<double>(j, "throttle_threshold");
  p.discard_throttled = read<bool>(j, "discard_throttled");
  // Files written before graph mode launched every iteration on the stream.
  p.launch =
      has_field(j, "launch") ? read_enum(j, "launch", parse_launch_mode) : launch_mode::stream;
  // Files written before the counter pass asked for none.
  p.counters = read_added_later<bool>(j, "counters").value_or(false);
  p.metrics =
      read_added_later<std::vector<std::string>>(j, "metrics").value_or(std::vector<std::string>{});
  p.counters_only = read_added_later<bool>(j, "counters_only").value_or(false);
  return p;
}

device_info device_of(json_value j) {
  return {.ordinal = read<int>(j, "ordinal"),
          .name = read<std::string>(j, "name"),
          .compute_capability_major = read<int>(j, "compute_capability_major"),
          .compute_capability_minor = read<int>(j, "compute_capability_minor"),
          .multiprocessors = read<int>(j, "multiprocessors"),
          .l2_bytes = read<std::size_t>(j, "l2_bytes"),
          .memory_bytes = read<std::size_t>(j, "memory_bytes"),
          .peak_sm_clock_khz = read_added_later<int>(j, "peak_sm_clock_khz").value_or(0),
          .memory_clock_khz = read_added_later<int>(j, "memory_clock_khz").value_or(0),
          .memory_bus_width_bits = read_added_later<int>(j, "memory_bus_width_bits").value_or(0),
          .driver_version = read<int>(j, "driver_version"),
          .runtime_version = read<int>(j, "runtime_version")};
}

device_telemetry device_telemetry_of(json_value j) {
  device_telemetry t;
  t.available = read<bool>(j, "available");
  t.unavailable_reason = read<std::string>(j, "unavailable_reason");
  t.name = read<std::string>(j, "name");
  t.pci_bus_id = read<std::string>(j, "pci_bus_id");
  t.uuid = read<std::string>(j, "uuid");
  t.driver_version = read<std::string>(j, "driver_version");
  t.max_sm_clock_mhz = read_optional<unsigned>(j, "max_sm_clock_mhz");
  t.max_memory_clock_mhz = read_optional<unsigned>(j, "max_memory_clock_mhz");
  t.application_sm_clock_mhz = read_optional<unsigned>(j, "application_sm_clock_mhz");
  t.application_memory_clock_mhz = read_optional<unsigned>(j, "application_memory_clock_mhz");
  t.power_limit_w = read_optional<double>(j, "power_limit_w");
  t.clocks_locked = read_optional<bool>(j, "clocks_locked");
  return t;
}

std::optional<gpu_snapshot> snapshot_of(json_value j) {
  if (j.is_null()) {
    return std::nullopt;
  }
  gpu_snapshot s;
  s.sm_clock_mhz = read_optional<unsigned>(j, "sm_clock_mhz");
  s.memory_clock_mhz = read_optional<unsigned>(j, "memory_clock_mhz");
  s.power_w = read_optional<double>(j, "power_w");
  s.temperature_c = read_optional<unsigned>(j, "temperature_c");
  s.clock_event_reasons = read_optional<std::uint64_t>(j, "clock_event_reasons");
  s.clock_event_names = read<std::vector<std::string>>(j, "clock_event_names");
  return s;
}

trial_result trial_of(json_value j) {
  const auto spans = array_of(field(j, "span_ns"), "span_ns");
  const auto busies = array_of(field(j, "busy_ns"), "busy_ns");
  if (spans.size() != busies.size()) {
    throw invalid_argument(fmt::format("a trial holds {} span_ns but {} busy_ns samples",
                                       spans.size(), busies.size()));
  }
  trial_result trial;
  trial.iterations.reserve(spans.size());
  auto busy = busies.begin();
  for (const json_value span : spans) {
    trial.iterations.push_back(
        {read_as<double>(span, "span_ns"), read_as<double>(*busy, "busy_ns")});
    ++busy;
  }
  json_value t = field(j, "telemetry");
  trial.telemetry.before = snapshot_of(field(t, "before"));
  trial.telemetry.after = snapshot_of(field(t, "after"));
  trial.telemetry.measured_sm_clock_mhz = read_optional<double>(t, "measured_sm_clock_mhz");
  trial.telemetry.sm_clock_fraction = read_added_later<double>(t, "sm_clock_fraction");
  trial.telemetry.throttled = read<bool>(t, "throttled");
  trial.telemetry.throttle_reason = read<std::string>(t, "throttle_reason");
  // Files from before energy was read per measurement carry per-trial counter readings
  // (energy_mj_before, energy_mj_after, energy_interval_s): their energy block already holds the
  // summary, so the readings are not needed.
  return trial;
}

// A file from before "stopping" was written ran the fixed protocol: its summary follows from the
// protocol and the trials.
stopping_summary stopping_of(json_value j, const measurement_result& r) {
  stopping_summary s;
  const auto k = block_added_later(j, "stopping");
  if (!k) {
    s.warmup_iterations = r.protocol_used.warmup;
    s.trials = static_cast<int>(r.trials.size());
    const detail::median_precision precision = detail::precision_of(r.trials_summary.medians);
    s.median_interval = precision.interval;
    s.half_width = precision.half_width;
    return s;
  }
  s.trials = read<int>(*k, "trials");
  s.reason = read_enum(*k, "stopped_because", parse_stop_reason);
  if (json_value interval = field(*k, "median_interval"); !interval.is_null()) {
    s.median_interval =
        confidence_interval{read<double>(interval, "low_ns"), read<double>(interval, "high_ns"),
                            read<double>(interval, "confidence")};
  }
  s.half_width = read_optional<double>(*k, "half_width");
  s.warmup_iterations = read<int>(*k, "warmup_iterations");
  s.warmup_settled = read<bool>(*k, "warmup_settled");
  return s;
}

// A block a later kerntime added, read by `read_block`; a file from before it gets `absent`, what
// such a file meant.
template <typename Block, typename Read>
Block read_block_added_later(json_value result, const char* key, Read read_block,
                             Block absent = {}) {
  const auto block = block_added_later(result, key);
  return block ? read_block(*block) : absent;
}

// A file from before the work was judged has no "work": nothing was judged then (all zero).
work_behaviour work_of(json_value j) {
  work_behaviour w;
  w.synchronizing_iterations = read<int>(j, "synchronizing_iterations");
  w.synchronizing_calls = read<std::vector<std::string>>(j, "synchronizing_calls");
  w.host_gap_iterations = read<int>(j, "host_gap_iterations");
  w.judged_iterations = read<int>(j, "judged_iterations");
  w.longest_host_gap_ns = read<double>(j, "longest_host_gap_ns");
  w.rotation_added_kernels = read<std::vector<std::string>>(j, "rotation_added_kernels");
  w.queue_chunk_iterations = read<int>(j, "queue_chunk_iterations");
  w.queue_stalls = read<int>(j, "queue_stalls");
  w.launch_queue_depth = read<int>(j, "launch_queue_depth");
  return w;
}

// A file from before the phases were timed has none: all zero.
host_phases host_phases_of(json_value j) {
  host_phases p;
  for (const auto& [name, field] : host_phase_names) {
    p.*field = read<double>(j, std::string(name).c_str());
  }
  return p;
}

// A file from before energy was read has none: unavailable, and why.
energy_summary energy_not_recorded() {
  energy_summary e;
  e.unavailable_reason = "not recorded (the file was written before kerntime read energy)";
  return e;
}

energy_summary energy_of(json_value j) {
  energy_summary e;
  e.available = read<bool>(j, "available");
  e.unavailable_reason = read<std::string>(j, "unavailable_reason");
  e.joules_per_iteration = read_optional<double>(j, "joules_per_iteration");
  e.average_watts = read_optional<double>(j, "average_watts");
  e.window_s = read_added_later<double>(j, "window_s");
  e.window_iterations = read_added_later<std::size_t>(j, "window_iterations").value_or(0);
  return e;
}

// null is a value CUPTI could not evaluate (NaN, which JSON cannot hold).
std::map<std::string, double> metric_values_of(json_value j) {
  std::map<std::string, double> values;
  for (const auto field : object_of(j, "metrics")) {
    const std::string name(field.key);
    values[name] = field.value.is_null() ? std::numeric_limits<double>::quiet_NaN()
                                         : read_as<double>(field.value, name.c_str());
  }
  return values;
}

// Only the keys written are set: the others were not derived. Files written before the range
// check have no "implausible": it is read off their metrics as derive_counters does.
counters_derived counters_derived_of(json_value j, const std::map<std::string, double>& metrics) {
  const auto number = [&j](const char* key) {
    return has_field(j, key) ? std::optional<double>(read<double>(j, key)) : std::nullopt;
  };
  counters_derived d;
  d.dram_bytes = number("dram_bytes");
  d.dram_bytes_per_second = number("dram_bytes_per_second");
  d.dram_fraction_of_peak = number("dram_fraction_of_peak");
  d.dram_percent_of_peak = number("dram_percent_of_peak");
  d.compute_percent_of_peak = number("compute_percent_of_peak");
  if (has_field(j, "bound")) {
    d.bound = read_enum(j, "bound", parse_roofline_bound);
  }
  d.implausible = has_field(j, "implausible") ? read<std::vector<std::string>>(j, "implausible")
                                              : detail::implausible_counters(metrics);
  return d;
}

// A file from before the counter pass has no "counters": none were requested. A not-requested
// block holds its status alone, an unavailable one its reason too.
counters_summary counters_of(json_value j) {
  counters_summary c;
  c.status = read_enum(j, "status", parse_counters_status);
  if (c.status == counters_status::not_requested) {
    return c;
  }
  if (c.status == counters_status::unavailable) {
    c.reason = read<std::string>(j, "reason");
  }
  c.chip = read<std::string>(j, "chip");
  c.metrics = read<std::vector<std::string>>(j, "metrics");
  c.passes = read<int>(j, "passes");
  c.seconds = read<double>(j, "seconds");
  c.kernels = read_list<kernel_counters_result>(field(j, "kernels"), "kernels", [](json_value k) {
    auto metrics = metric_values_of(field(k, "metrics"));
    auto derived = counters_derived_of(field(k, "derived"), metrics);
    return kernel_counters_result{read<std::string>(k, "name"), read<int>(k, "launches"),
                                  std::move(metrics), std::move(derived)};
  });
  c.metrics_total = metric_values_of(field(j, "metrics_total"));
  c.derived = counters_derived_of(field(j, "derived"), c.metrics_total);
  c.mismatches = read<std::vector<std::string>>(j, "mismatches");
  return c;
}

speed_of_light speed_of_light_of(json_value j) {
  speed_of_light sol;
  if (!field(j, "precision").is_null()) {
    sol.precision = read_enum(j, "precision", parse_flop_precision);
  }
  sol.peak_flops_per_s = read_optional<double>(j, "peak_flops_per_s");
  sol.peak_bytes_per_s = read_optional<double>(j, "peak_bytes_per_s");
  sol.compute_pct = read_optional<double>(j, "compute_pct");
  sol.memory_pct = read_optional<double>(j, "memory_pct");
  sol.bound = read_enum(j, "bound", parse_roofline_bound);
  sol.roofline_ns = read<double>(j, "roofline_ns");
  sol.peak_source = read<std::string>(j, "peak_source");
  if (json_value a = field(j, "achievable"); !a.is_null()) {
    sol.achievable = achievable_speed_of_light{
        read_optional<double>(a, "flops_per_s"), read_optional<double>(a, "bytes_per_s"),
        read_optional<double>(a, "compute_pct"), read_optional<double>(a, "memory_pct"),
        read<std::string>(a, "source")};
  }
  if (has_field(j, "notes")) {
    sol.notes = read<std::vector<std::string>>(j, "notes");
  }
  return sol;
}

// The trace as written since 2026-12-04: each kernel's name and kind once, then one row per record
// [kernel, iteration, stream, start_ns, end_ns]. Files written before hold a list of records, each
// naming its kernel.
std::vector<trace_record> trace_of(json_value j) {
  if (j.type() == simdjson::dom::element_type::ARRAY) {
    return read_list<trace_record>(j, "trace", [](json_value e) {
      return trace_record{read<std::string>(e, "name"), read_enum(e, "kind", parse_activity_kind),
                          read<int>(e, "iteration"),    read<std::uint32_t>(e, "stream"),
                          read<double>(e, "start_ns"),  read<double>(e, "end_ns")};
    });
  }
  struct named {
    std::string name;
    activity_kind kind;
  };
  const auto kernels = read_list<named>(field(j, "kernels"), "kernels", [](json_value k) {
    return named{read<std::string>(k, "name"), read_enum(k, "kind", parse_activity_kind)};
  });
  return read_list<trace_record>(field(j, "records"), "records", [&kernels](json_value row) {
    const auto cells = array_of(row, "records");
    if (cells.size() != 5) {
      throw invalid_argument(fmt::format("a trace record holds {}, not 5 (kernel, iteration, "
                                         "stream, start_ns, end_ns)",
                                         counted(cells.size(), "value")));
    }
    const auto kernel = read_as<std::size_t>(cells.at(0), "kernel");
    if (kernel >= kernels.size()) {
      throw invalid_argument(fmt::format("trace kernel {} is out of range ({})", kernel,
                                         counted(kernels.size(), "kernel")));
    }
    return trace_record{kernels[kernel].name,
                        kernels[kernel].kind,
                        read_as<int>(cells.at(1), "iteration"),
                        read_as<std::uint32_t>(cells.at(2), "stream"),
                        read_as<double>(cells.at(3), "start_ns"),
                        read_as<double>(cells.at(4), "end_ns")};
  });
}

// Files written before sm_clock_fraction also flagged a trial when NVML named a slowdown reason
// (sw_power_cap at 99 % of the maximum clock). Their trials are judged again by this version's
// rule, the clock measured on the GPU, so reports and compare of old and new files agree.
void judge_again_by_the_clock(measurement_result& r, json_value trials_json) {
  const auto trials = array_of(trials_json, "trials");
  std::optional<double> max_mhz;
  if (r.telemetry.max_sm_clock_mhz) {
    max_mhz = *r.telemetry.max_sm_clock_mhz;
  } else if (r.device.peak_sm_clock_khz > 0) {
    max_mhz = r.device.peak_sm_clock_khz / 1000.0;
  }
  for (std::size_t i = 0; i < r.trials.size(); ++i) {
    if (has_field(field(trials.at(i), "telemetry"), "sm_clock_fraction")) {
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

measurement_result result_of(json_value j, bool with_trace) {
  measurement_result r;
  r.protocol_used = protocol_of(field(j, "protocol"));
  r.device = device_of(field(j, "device"));
  r.backend = read_enum(j, "timing_backend", parse_timing_backend);
  r.backend_reason = read<std::string>(j, "backend_reason");
  // Files written before cupti_mode: CUPTI meant kerntime's own subscription.
  r.cupti = has_field(j, "cupti_mode")
                ? read_enum(j, "cupti_mode", parse_cupti_mode)
                : (r.backend == timing_backend::cupti ? cupti_mode::subscribed : cupti_mode::none);
  r.latency_ns = read<double>(j, "latency_ns");
  json_value s = field(j, "statistics");
  r.stats = statistics_of(field(s, "headline"));
  r.span = statistics_of(field(s, "span"));
  r.busy = statistics_of(field(s, "busy"));
  json_value t = field(j, "trial_statistics");
  r.trials_summary.means = read<std::vector<double>>(t, "means_ns");
  r.trials_summary.medians = read<std::vector<double>>(t, "medians_ns");
  r.trials_summary.stdev_of_means = read<double>(t, "stdev_of_means_ns");
  r.trials_summary.cv_of_means = read<double>(t, "cv_of_means");
  if (!r.trials_summary.means.empty()) { // not written: derived from the means, as summarise does
    const summary_statistics of_means = summarise_values(r.trials_summary.means);
    r.trials_summary.mean_of_means = of_means.mean;
    r.trials_summary.median_of_means = of_means.median;
  }
  r.trials = read_list<trial_result>(field(j, "trials"), "trials", trial_of);
  r.kernels = read_list<kernel_summary>(field(j, "kernels"), "kernels", [](json_value k) {
    return kernel_summary{
        read<std::string>(k, "name"),           read_enum(k, "kind", parse_activity_kind),
        read<double>(k, "calls_per_iteration"), read<double>(k, "mean_ns"),
        read<double>(k, "median_ns"),           read<double>(k, "share")};
  });
  if (with_trace) {
    r.trace = trace_of(field(j, "trace"));
  }
  r.telemetry = device_telemetry_of(field(j, "device_telemetry"));
  judge_again_by_the_clock(r, field(j, "trials"));
  r.energy = read_block_added_later(j, "energy", energy_of, energy_not_recorded());
  r.counters = read_block_added_later<counters_summary>(j, "counters", counters_of);
  r.warnings = read<std::vector<std::string>>(j, "warnings");
  r.work = read_block_added_later<work_behaviour>(j, "work", work_of);
  r.wall_seconds = read<double>(j, "wall_seconds");
  r.phases = read_block_added_later<host_phases>(j, "host_phases_seconds", host_phases_of);
  r.flush_bytes = read<std::size_t>(j, "flush_bytes");
  r.flush_median_ns = read<double>(j, "flush_median_ns");
  // Files written before results recorded the timer's step: read off their spans, as summarise
  // does.
  r.timer_resolution_ns = read_added_later<double>(j, "timer_resolution_ns")
                              .value_or(detail::timer_step_ns(detail::all_spans(r.trials)));
  // Files written before preparations were counted came from one each.
  r.preparations = read_added_later<int>(j, "preparations").value_or(1);
  if (r.preparations < 1) {
    throw invalid_argument(
        fmt::format("\"preparations\" is {}; a result comes from at least 1", r.preparations));
  }
  r.preparation_spread = read_added_later<double>(j, "preparation_spread");
  r.stopping = stopping_of(j, r);
  return r;
}

} // namespace

benchmark_run run_of(json_value j, bool with_trace) {
  benchmark_run run;
  run.benchmark = read<std::string>(j, "benchmark");
  run.state_name = read<std::string>(j, "state_name");
  for (const json_value axis : array_of(field(j, "axes"), "axes")) {
    run.axes.emplace_back(read<std::string>(axis, "name"), read<std::string>(axis, "value"));
  }
  run.status = read_enum(j, "status", parse_run_status);
  if (!field(j, "error_kind").is_null()) {
    run.error = read_enum(j, "error_kind", parse_error_kind);
  }
  run.message = field(j, "message").is_null() ? std::string() : read<std::string>(j, "message");
  run.flops = read_optional<double>(j, "flops_per_iteration");
  run.bytes = read_optional<double>(j, "bytes_per_iteration");
  if (const auto precision = read_added_later<std::string>(j, "flops_precision")) {
    run.flops_precision = parse_flop_precision(*precision);
    if (!run.flops_precision) {
      throw invalid_argument(fmt::format("'{}' is not a known flops_precision", *precision));
    }
  }
  if (has_field(j, "speed_of_light") && !field(j, "speed_of_light").is_null()) {
    run.sol = speed_of_light_of(field(j, "speed_of_light"));
  }
  run.wall_seconds = read_added_later<double>(j, "wall_seconds").value_or(0.0);
  if (has_field(j, "device") && !field(j, "device").is_null()) {
    json_value d = field(j, "device");
    run.device = run_device{read<std::string>(d, "host"), read<int>(d, "ordinal"),
                            read<std::string>(d, "name"), read<std::string>(d, "uuid")};
  }
  run.plan_index = read_added_later<std::size_t>(j, "plan_index");
  if (!field(j, "result").is_null()) {
    run.result = result_of(field(j, "result"), with_trace);
  }
  return run;
}

run_context context_of(json_value j) {
  run_context c;
  c.kerntime_version = read<std::string>(j, "kerntime_version");
  c.command_line = read<std::string>(j, "command_line");
  c.host_name = read<std::string>(j, "host_name");
  c.date = read<std::string>(j, "date");
  if (!field(j, "device").is_null()) {
    c.device = device_of(field(j, "device"));
  }
  c.telemetry = device_telemetry_of(field(j, "telemetry"));
  if (has_field(j, "shard") && !field(j, "shard").is_null()) {
    json_value s = field(j, "shard");
    c.shard = shard_spec{read<int>(s, "index"), read<int>(s, "count")};
    if (c.shard->count < 1 || c.shard->index < 0 || c.shard->index >= c.shard->count) {
      throw invalid_argument(fmt::format("shard {}/{} is not a shard: INDEX/COUNT needs "
                                         "0 <= INDEX < COUNT",
                                         c.shard->index, c.shard->count));
    }
  }
  c.plan_states = read_added_later<std::size_t>(j, "plan_states");
  return c;
}

} // namespace kerntime::detail
