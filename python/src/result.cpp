// Read-only views of measurement_result and the structs it holds, field for field as in
// include/kerntime/result.hpp, telemetry.hpp and statistics.hpp (times stay in nanoseconds
// here; the Python Result converts to milliseconds). Enums are shown as their to_string text.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "bindings.hpp"
#include "kerntime/protocol.hpp"
#include "kerntime/result.hpp"
#include "kerntime/statistics.hpp"
#include "kerntime/telemetry.hpp"

namespace py = pybind11;

namespace kerntime::python {
namespace {

void bind_statistics(py::module_& m) {
  py::class_<summary_statistics>(m, "SummaryStatistics")
      .def_readonly("count", &summary_statistics::count)
      .def_readonly("median", &summary_statistics::median)
      .def_readonly("mean", &summary_statistics::mean)
      .def_readonly("stdev", &summary_statistics::stdev)
      .def_readonly("min", &summary_statistics::min)
      .def_readonly("max", &summary_statistics::max)
      .def_readonly("p10", &summary_statistics::p10)
      .def_readonly("p90", &summary_statistics::p90)
      .def_readonly("cv", &summary_statistics::cv);
  py::class_<trial_statistics>(m, "TrialStatistics")
      .def_readonly("means", &trial_statistics::means)
      .def_readonly("medians", &trial_statistics::medians)
      .def_readonly("stdev_of_means", &trial_statistics::stdev_of_means)
      .def_readonly("cv_of_means", &trial_statistics::cv_of_means);
  py::class_<confidence_interval>(m, "ConfidenceInterval")
      .def_readonly("low", &confidence_interval::low)
      .def_readonly("high", &confidence_interval::high)
      .def_readonly("confidence", &confidence_interval::confidence);
  py::class_<stopping_summary>(m, "StoppingSummary")
      .def_readonly("warmup_iterations", &stopping_summary::warmup_iterations)
      .def_readonly("warmup_settled", &stopping_summary::warmup_settled)
      .def_readonly("trials", &stopping_summary::trials)
      .def_property_readonly(
          "stopped_because",
          [](const stopping_summary& s) { return std::string(to_string(s.reason)); })
      .def_readonly("median_interval", &stopping_summary::median_interval)
      .def_readonly("half_width", &stopping_summary::half_width);
}

void bind_telemetry(py::module_& m) {
  py::class_<gpu_snapshot>(m, "GpuSnapshot")
      .def_readonly("sm_clock_mhz", &gpu_snapshot::sm_clock_mhz)
      .def_readonly("memory_clock_mhz", &gpu_snapshot::memory_clock_mhz)
      .def_readonly("power_w", &gpu_snapshot::power_w)
      .def_readonly("temperature_c", &gpu_snapshot::temperature_c)
      .def_readonly("clock_event_reasons", &gpu_snapshot::clock_event_reasons)
      .def_readonly("clock_event_names", &gpu_snapshot::clock_event_names);
  py::class_<trial_telemetry>(m, "TrialTelemetry")
      .def_readonly("before", &trial_telemetry::before)
      .def_readonly("after", &trial_telemetry::after)
      .def_readonly("measured_sm_clock_mhz", &trial_telemetry::measured_sm_clock_mhz)
      .def_readonly("sm_clock_fraction", &trial_telemetry::sm_clock_fraction)
      .def_readonly("throttled", &trial_telemetry::throttled)
      .def_readonly("throttle_reason", &trial_telemetry::throttle_reason);
  py::class_<device_telemetry>(m, "DeviceTelemetry")
      .def_readonly("available", &device_telemetry::available)
      .def_readonly("unavailable_reason", &device_telemetry::unavailable_reason)
      .def_readonly("name", &device_telemetry::name)
      .def_readonly("pci_bus_id", &device_telemetry::pci_bus_id)
      .def_readonly("uuid", &device_telemetry::uuid)
      .def_readonly("driver_version", &device_telemetry::driver_version)
      .def_readonly("max_sm_clock_mhz", &device_telemetry::max_sm_clock_mhz)
      .def_readonly("max_memory_clock_mhz", &device_telemetry::max_memory_clock_mhz)
      .def_readonly("application_sm_clock_mhz", &device_telemetry::application_sm_clock_mhz)
      .def_readonly("application_memory_clock_mhz", &device_telemetry::application_memory_clock_mhz)
      .def_readonly("power_limit_w", &device_telemetry::power_limit_w)
      .def_readonly("clocks_locked", &device_telemetry::clocks_locked);
}

void bind_protocol(py::module_& m) {
  py::class_<protocol>(m, "Protocol")
      .def_readonly("warmup", &protocol::warmup)
      .def_readonly("warmup_auto", &protocol::warmup_auto)
      .def_readonly("trials", &protocol::trials)
      .def_readonly("stop_at_ci", &protocol::stop_at_ci)
      .def_readonly("max_trials", &protocol::max_trials)
      .def_readonly("max_time_s", &protocol::max_time_s)
      .def_readonly("repeats", &protocol::repeats)
      .def_readonly("flush_l2", &protocol::flush_l2)
      .def_readonly("flush_bytes", &protocol::flush_bytes)
      .def_readonly("input_sets", &protocol::input_sets)
      .def_property_readonly("backend",
                             [](const protocol& p) { return std::string(to_string(p.backend)); })
      .def_property_readonly("metric",
                             [](const protocol& p) { return std::string(to_string(p.metric)); })
      .def_readonly("telemetry", &protocol::telemetry)
      .def_readonly("throttle_threshold", &protocol::throttle_threshold)
      .def_readonly("discard_throttled", &protocol::discard_throttled)
      .def_readonly("counters", &protocol::counters)
      .def_readonly("metrics", &protocol::metrics)
      .def_property_readonly("launch",
                             [](const protocol& p) { return std::string(to_string(p.launch)); });
}

void bind_counters(py::module_& m) {
  py::class_<counters_derived>(m, "CountersDerived")
      .def_readonly("dram_bytes", &counters_derived::dram_bytes)
      .def_readonly("dram_bytes_per_second", &counters_derived::dram_bytes_per_second)
      .def_readonly("dram_fraction_of_peak", &counters_derived::dram_fraction_of_peak)
      .def_readonly("dram_percent_of_peak", &counters_derived::dram_percent_of_peak)
      .def_readonly("compute_percent_of_peak", &counters_derived::compute_percent_of_peak)
      .def_readonly("implausible", &counters_derived::implausible)
      .def_property_readonly("bound", [](const counters_derived& d) -> std::optional<std::string> {
        if (!d.bound) {
          return std::nullopt;
        }
        return std::string(to_string(*d.bound));
      });
  py::class_<kernel_counters_result>(m, "KernelCounters")
      .def_readonly("name", &kernel_counters_result::name)
      .def_readonly("launches", &kernel_counters_result::launches)
      .def_readonly("metrics", &kernel_counters_result::metrics)
      .def_readonly("derived", &kernel_counters_result::derived);
  py::class_<counters_summary>(m, "Counters")
      .def_property_readonly(
          "status", [](const counters_summary& c) { return std::string(to_string(c.status)); })
      .def_readonly("reason", &counters_summary::reason)
      .def_readonly("chip", &counters_summary::chip)
      .def_readonly("metrics", &counters_summary::metrics)
      .def_readonly("passes", &counters_summary::passes)
      .def_readonly("seconds", &counters_summary::seconds)
      .def_readonly("kernels", &counters_summary::kernels)
      .def_readonly("metrics_total", &counters_summary::metrics_total)
      .def_readonly("derived", &counters_summary::derived)
      .def_readonly("mismatches", &counters_summary::mismatches);
}

void bind_measurement(py::module_& m) {
  py::class_<iteration_sample>(m, "IterationSample")
      .def_readonly("span_ns", &iteration_sample::span_ns)
      .def_readonly("busy_ns", &iteration_sample::busy_ns);
  py::class_<trial_result>(m, "TrialResult")
      .def_readonly("iterations", &trial_result::iterations)
      .def_readonly("telemetry", &trial_result::telemetry);
  py::class_<kernel_summary>(m, "KernelSummary")
      .def_readonly("name", &kernel_summary::name)
      .def_property_readonly("kind",
                             [](const kernel_summary& k) { return std::string(to_string(k.kind)); })
      .def_readonly("calls_per_iteration", &kernel_summary::calls_per_iteration)
      .def_readonly("mean_ns", &kernel_summary::mean_ns)
      .def_readonly("median_ns", &kernel_summary::median_ns)
      .def_readonly("share", &kernel_summary::share);
  py::class_<trace_record>(m, "TraceRecord")
      .def_readonly("name", &trace_record::name)
      .def_property_readonly("kind",
                             [](const trace_record& t) { return std::string(to_string(t.kind)); })
      .def_readonly("iteration", &trace_record::iteration)
      .def_readonly("stream", &trace_record::stream)
      .def_readonly("start_ns", &trace_record::start_ns)
      .def_readonly("end_ns", &trace_record::end_ns);
  py::class_<device_info>(m, "DeviceInfo")
      .def_readonly("ordinal", &device_info::ordinal)
      .def_readonly("name", &device_info::name)
      .def_readonly("compute_capability_major", &device_info::compute_capability_major)
      .def_readonly("compute_capability_minor", &device_info::compute_capability_minor)
      .def_readonly("multiprocessors", &device_info::multiprocessors)
      .def_readonly("l2_bytes", &device_info::l2_bytes)
      .def_readonly("memory_bytes", &device_info::memory_bytes)
      .def_readonly("driver_version", &device_info::driver_version)
      .def_readonly("runtime_version", &device_info::runtime_version);
  py::class_<measurement_result>(m, "MeasurementResult")
      .def_readonly("protocol_used", &measurement_result::protocol_used)
      .def_readonly("device", &measurement_result::device)
      .def_property_readonly(
          "backend", [](const measurement_result& r) { return std::string(to_string(r.backend)); })
      .def_readonly("backend_reason", &measurement_result::backend_reason)
      .def_property_readonly(
          "cupti_mode", [](const measurement_result& r) { return std::string(to_string(r.cupti)); })
      .def_readonly("latency_ns", &measurement_result::latency_ns)
      .def_readonly("stats", &measurement_result::stats)
      .def_readonly("span", &measurement_result::span)
      .def_readonly("busy", &measurement_result::busy)
      .def_readonly("trials_summary", &measurement_result::trials_summary)
      .def_readonly("stopping", &measurement_result::stopping)
      .def_readonly("trials", &measurement_result::trials)
      .def_readonly("kernels", &measurement_result::kernels)
      .def_readonly("trace", &measurement_result::trace)
      .def_readonly("telemetry", &measurement_result::telemetry)
      .def_readonly("counters", &measurement_result::counters)
      .def_readonly("warnings", &measurement_result::warnings)
      .def_readonly("wall_seconds", &measurement_result::wall_seconds)
      .def_property_readonly("host_phases",
                             [](const measurement_result& r) {
                               py::dict phases;
                               for (const auto& [name, field] : host_phase_names) {
                                 phases[py::str(std::string(name))] = r.phases.*field;
                               }
                               return phases;
                             })
      .def_readonly("flush_bytes", &measurement_result::flush_bytes)
      .def_readonly("flush_median_ns", &measurement_result::flush_median_ns)
      .def_readonly("timer_resolution_ns", &measurement_result::timer_resolution_ns)
      .def_readonly("preparations", &measurement_result::preparations)
      .def_readonly("preparation_spread", &measurement_result::preparation_spread);
}

} // namespace

void bind_result(py::module_& m) {
  bind_statistics(m);
  bind_telemetry(m);
  bind_protocol(m);
  bind_counters(m);
  bind_measurement(m);
}

} // namespace kerntime::python
