#include "report/detail/result_json.hpp"

#include <cmath>
#include <map>

#include "report/detail/stopping_text.hpp"
#include "report/detail/text.hpp"

namespace kerntime::detail {
namespace {

using json = nlohmann::ordered_json;

template <typename T> json optional_value(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

json statistics_to_json(const summary_statistics& s) {
  return {{"count", s.count},    {"median_ns", s.median}, {"mean_ns", s.mean},
          {"stdev_ns", s.stdev}, {"min_ns", s.min},       {"max_ns", s.max},
          {"p10_ns", s.p10},     {"p90_ns", s.p90},       {"cv", s.cv}};
}

json protocol_to_json(const protocol& p) {
  json j = {{"warmup", p.warmup},
            {"warmup_auto", p.warmup_auto},
            {"trials", p.trials},
            {"stop_at_ci", optional_value(p.stop_at_ci)},
            {"max_trials", p.max_trials},
            {"max_time_s", p.max_time_s},
            {"repeats", p.repeats},
            {"flush_l2", p.flush_l2},
            {"flush_bytes", p.flush_bytes},
            {"input_sets", p.input_sets},
            {"backend", std::string(to_string(p.backend))},
            {"metric", std::string(to_string(p.metric))},
            {"telemetry", p.telemetry},
            {"throttle_threshold", p.throttle_threshold},
            {"discard_throttled", p.discard_throttled},
            {"launch", std::string(to_string(p.launch))},
            {"counters", p.counters},
            {"metrics", p.metrics}};
  if (p.counters_only) {
    // Only the counter phase of run --counters, between worker and supervisor; never in a report.
    j["counters_only"] = true;
  }
  return j;
}

json snapshot_to_json(const std::optional<gpu_snapshot>& snapshot) {
  if (!snapshot) {
    return nullptr;
  }
  return {{"sm_clock_mhz", optional_value(snapshot->sm_clock_mhz)},
          {"memory_clock_mhz", optional_value(snapshot->memory_clock_mhz)},
          {"power_w", optional_value(snapshot->power_w)},
          {"temperature_c", optional_value(snapshot->temperature_c)},
          {"clock_event_reasons", optional_value(snapshot->clock_event_reasons)},
          {"clock_event_names", snapshot->clock_event_names}};
}

json trial_to_json(const trial_result& trial) {
  json span = json::array();
  json busy = json::array();
  for (const auto& iteration : trial.iterations) {
    span.push_back(iteration.span_ns);
    busy.push_back(iteration.busy_ns);
  }
  const auto& t = trial.telemetry;
  return {{"span_ns", std::move(span)},
          {"busy_ns", std::move(busy)},
          {"telemetry",
           {{"before", snapshot_to_json(t.before)},
            {"after", snapshot_to_json(t.after)},
            {"measured_sm_clock_mhz", optional_value(t.measured_sm_clock_mhz)},
            {"sm_clock_fraction", optional_value(t.sm_clock_fraction)},
            {"throttled", t.throttled},
            {"throttle_reason", t.throttle_reason}}}};
}

json stopping_to_json(const protocol& p, const stopping_summary& s) {
  json interval = nullptr;
  if (s.median_interval) {
    interval = {{"low_ns", s.median_interval->low},
                {"high_ns", s.median_interval->high},
                {"confidence", s.median_interval->confidence}};
  }
  return {{"rule", std::string(stopping_rule_name(p))},
          {"trials", s.trials},
          {"stopped_because", std::string(to_string(s.reason))},
          {"median_interval", std::move(interval)},
          {"half_width", optional_value(s.half_width)},
          {"warmup_rule", p.warmup_auto ? "auto" : "fixed"},
          {"warmup_iterations", s.warmup_iterations},
          {"warmup_settled", s.warmup_settled}};
}

json kernel_to_json(const kernel_summary& k) {
  return {{"name", k.name},
          {"kind", std::string(to_string(k.kind))},
          {"calls_per_iteration", k.calls_per_iteration},
          {"mean_ns", k.mean_ns},
          {"median_ns", k.median_ns},
          {"share", k.share}};
}

// Each kernel's name and kind once, then a row per record: [kernel, iteration, stream, start_ns,
// end_ns]. A multi-kernel op names a few kernels over and over (CUB's names run to 300 bytes):
// written record by record they were most of a result file's bytes.
json trace_to_json(const std::vector<trace_record>& trace) {
  json kernels = json::array();
  json records = json::array();
  std::map<std::pair<std::string_view, activity_kind>, std::size_t> index;
  for (const auto& r : trace) {
    const auto [at, added] = index.try_emplace({r.name, r.kind}, index.size());
    if (added) {
      kernels.push_back({{"name", r.name}, {"kind", std::string(to_string(r.kind))}});
    }
    records.push_back({at->second, r.iteration, r.stream, r.start_ns, r.end_ns});
  }
  return {{"kernels", std::move(kernels)}, {"records", std::move(records)}};
}

template <typename T, typename Convert>
json array_of(const std::vector<T>& items, Convert convert) {
  json out = json::array();
  for (const auto& item : items) {
    out.push_back(convert(item));
  }
  return out;
}

json energy_to_json(const energy_summary& e) {
  return {{"available", e.available},
          {"unavailable_reason", e.unavailable_reason},
          {"joules_per_iteration", optional_value(e.joules_per_iteration)},
          {"average_watts", optional_value(e.average_watts)},
          {"window_s", optional_value(e.window_s)},
          {"window_iterations", e.window_iterations}};
}

json work_to_json(const work_behaviour& w) {
  return {{"synchronizing_iterations", w.synchronizing_iterations},
          {"synchronizing_calls", w.synchronizing_calls},
          {"host_gap_iterations", w.host_gap_iterations},
          {"judged_iterations", w.judged_iterations},
          {"longest_host_gap_ns", w.longest_host_gap_ns},
          {"rotation_added_kernels", w.rotation_added_kernels},
          {"queue_chunk_iterations", w.queue_chunk_iterations},
          {"queue_stalls", w.queue_stalls},
          {"launch_queue_depth", w.launch_queue_depth}};
}

json host_phases_to_json(const host_phases& p) {
  json phases = json::object();
  for (const auto& [name, field] : host_phase_names) {
    phases[std::string(name)] = p.*field;
  }
  return phases;
}

json speed_of_light_to_json(const speed_of_light& sol) {
  json achievable = nullptr;
  if (sol.achievable) {
    const auto& a = *sol.achievable;
    achievable = {{"flops_per_s", optional_value(a.flops_per_s)},
                  {"bytes_per_s", optional_value(a.bytes_per_s)},
                  {"compute_pct", optional_value(a.compute_pct)},
                  {"memory_pct", optional_value(a.memory_pct)},
                  {"source", a.source}};
  }
  json out = {
      {"precision", sol.precision ? json(std::string(to_string(*sol.precision))) : json(nullptr)},
      {"peak_flops_per_s", optional_value(sol.peak_flops_per_s)},
      {"peak_bytes_per_s", optional_value(sol.peak_bytes_per_s)},
      {"compute_pct", optional_value(sol.compute_pct)},
      {"memory_pct", optional_value(sol.memory_pct)},
      {"bound", std::string(to_string(sol.bound))},
      {"roofline_ns", sol.roofline_ns},
      {"peak_source", sol.peak_source},
      {"achievable", std::move(achievable)}};
  if (!sol.notes.empty()) {
    out["notes"] = sol.notes;
  }
  return out;
}

// A metric CUPTI could not evaluate is NaN; JSON has no NaN, so it is written as null.
json metric_values_to_json(const std::map<std::string, double>& metrics) {
  json out = json::object();
  for (const auto& [name, value] : metrics) {
    out[name] = std::isfinite(value) ? json(value) : json(nullptr);
  }
  return out;
}

// Only the values the collected metrics allowed: a missing key was not derived.
json counters_derived_to_json(const counters_derived& d) {
  json out = json::object();
  const auto add = [&out](const char* key, const std::optional<double>& value) {
    if (value) {
      out[key] = *value;
    }
  };
  add("dram_bytes", d.dram_bytes);
  add("dram_bytes_per_second", d.dram_bytes_per_second);
  add("dram_fraction_of_peak", d.dram_fraction_of_peak);
  add("dram_percent_of_peak", d.dram_percent_of_peak);
  add("compute_percent_of_peak", d.compute_percent_of_peak);
  if (d.bound) {
    out["bound"] = std::string(to_string(*d.bound));
  }
  if (!d.implausible.empty()) {
    out["implausible"] = d.implausible;
  }
  return out;
}

json kernel_counters_to_json(const kernel_counters_result& k) {
  return {{"name", k.name},
          {"launches", k.launches},
          {"metrics", metric_values_to_json(k.metrics)},
          {"derived", counters_derived_to_json(k.derived)}};
}

// Not requested: the status alone. Otherwise every field; `reason` only when unavailable.
json counters_to_json(const counters_summary& c) {
  json out = {{"status", std::string(to_string(c.status))}};
  if (c.status == counters_status::not_requested) {
    return out;
  }
  if (c.status == counters_status::unavailable) {
    out["reason"] = c.reason;
  }
  out["chip"] = c.chip;
  out["metrics"] = c.metrics;
  out["passes"] = c.passes;
  out["seconds"] = c.seconds;
  out["kernels"] = array_of(c.kernels, kernel_counters_to_json);
  out["metrics_total"] = metric_values_to_json(c.metrics_total);
  out["derived"] = counters_derived_to_json(c.derived);
  out["mismatches"] = c.mismatches;
  return out;
}

json run_device_to_json(const run_device& d) {
  return {{"host", d.host}, {"ordinal", d.ordinal}, {"name", d.name}, {"uuid", d.uuid}};
}

} // namespace

json device_to_json(const device_info& d) {
  return {{"ordinal", d.ordinal},
          {"name", d.name},
          {"compute_capability_major", d.compute_capability_major},
          {"compute_capability_minor", d.compute_capability_minor},
          {"multiprocessors", d.multiprocessors},
          {"l2_bytes", d.l2_bytes},
          {"memory_bytes", d.memory_bytes},
          {"peak_sm_clock_khz", d.peak_sm_clock_khz},
          {"memory_clock_khz", d.memory_clock_khz},
          {"memory_bus_width_bits", d.memory_bus_width_bits},
          {"driver_version", d.driver_version},
          {"runtime_version", d.runtime_version}};
}

json device_telemetry_to_json(const device_telemetry& t) {
  return {{"available", t.available},
          {"unavailable_reason", t.unavailable_reason},
          {"name", t.name},
          {"pci_bus_id", t.pci_bus_id},
          {"uuid", t.uuid},
          {"driver_version", t.driver_version},
          {"max_sm_clock_mhz", optional_value(t.max_sm_clock_mhz)},
          {"max_memory_clock_mhz", optional_value(t.max_memory_clock_mhz)},
          {"application_sm_clock_mhz", optional_value(t.application_sm_clock_mhz)},
          {"application_memory_clock_mhz", optional_value(t.application_memory_clock_mhz)},
          {"power_limit_w", optional_value(t.power_limit_w)},
          {"clocks_locked", optional_value(t.clocks_locked)}};
}

json result_to_json(const measurement_result& r) {
  return {{"protocol", protocol_to_json(r.protocol_used)},
          {"device", device_to_json(r.device)},
          {"timing_backend", std::string(to_string(r.backend))},
          {"backend_reason", r.backend_reason},
          {"cupti_mode", std::string(to_string(r.cupti))},
          {"latency_ns", r.latency_ns},
          {"statistics",
           {{"headline", statistics_to_json(r.stats)},
            {"span", statistics_to_json(r.span)},
            {"busy", statistics_to_json(r.busy)}}},
          {"trial_statistics",
           {{"means_ns", r.trials_summary.means},
            {"medians_ns", r.trials_summary.medians},
            {"stdev_of_means_ns", r.trials_summary.stdev_of_means},
            {"cv_of_means", r.trials_summary.cv_of_means}}},
          {"stopping", stopping_to_json(r.protocol_used, r.stopping)},
          {"trials", array_of(r.trials, trial_to_json)},
          {"kernels", array_of(r.kernels, kernel_to_json)},
          {"trace", trace_to_json(r.trace)},
          {"device_telemetry", device_telemetry_to_json(r.telemetry)},
          {"energy", energy_to_json(r.energy)},
          {"counters", counters_to_json(r.counters)},
          {"warnings", r.warnings},
          {"work", work_to_json(r.work)},
          {"wall_seconds", r.wall_seconds},
          {"host_phases_seconds", host_phases_to_json(r.phases)},
          {"flush_bytes", r.flush_bytes},
          {"flush_median_ns", r.flush_median_ns},
          {"timer_resolution_ns", r.timer_resolution_ns},
          {"preparations", r.preparations},
          {"preparation_spread", optional_value(r.preparation_spread)}};
}

json run_to_json(const benchmark_run& run) {
  json axes = json::array();
  for (const auto& [name, value] : run.axes) {
    axes.push_back({{"name", name}, {"value", value}});
  }
  const bool ok = run.status == run_status::ok;
  return {{"benchmark", run.benchmark},
          {"state_name", run.state_name},
          {"axes", std::move(axes)},
          {"status", std::string(to_string(run.status))},
          {"error_kind",
           run.status == run_status::failed ? json(detail::error_kind_text(run)) : json(nullptr)},
          {"message", ok ? json(nullptr) : json(run.message)},
          {"flops_per_iteration", optional_value(run.flops)},
          {"bytes_per_iteration", optional_value(run.bytes)},
          {"flops_precision", run.flops_precision
                                  ? json(std::string(to_string(*run.flops_precision)))
                                  : json(nullptr)},
          {"speed_of_light", run.sol ? speed_of_light_to_json(*run.sol) : json(nullptr)},
          {"wall_seconds", run.wall_seconds},
          {"device", run.device ? run_device_to_json(*run.device) : json(nullptr)},
          {"plan_index", optional_value(run.plan_index)},
          {"result", run.result ? result_to_json(*run.result) : json(nullptr)}};
}

json context_to_json(const run_context& c) {
  return {{"kerntime_version", c.kerntime_version},
          {"command_line", c.command_line},
          {"host_name", c.host_name},
          {"date", c.date},
          {"device", c.device ? device_to_json(*c.device) : json(nullptr)},
          {"telemetry", device_telemetry_to_json(c.telemetry)},
          {"shard",
           c.shard ? json{{"index", c.shard->index}, {"count", c.shard->count}} : json(nullptr)},
          {"plan_states", optional_value(c.plan_states)}};
}

std::string dump(const json& value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::detail::error_handler_t::replace);
}

} // namespace kerntime::detail
