#include <algorithm>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kerntime/report.hpp"
#include "report/detail/counters_text.hpp"
#include "report/detail/stopping_text.hpp"
#include "report/detail/telemetry_summary.hpp"
#include "report/detail/text.hpp"
#include "report/detail/units.hpp"

namespace kerntime {
namespace {

// The kernels a CI dashboard shows per state; the JSON has all of them.
constexpr std::size_t top_kernels = 10;

using property_list = std::vector<std::pair<std::string, std::string>>;

void add_telemetry(property_list& properties, const measurement_result& r) {
  const auto t = detail::summarise_telemetry(r);
  if (!t.has_readings) {
    if (!t.unavailable_reason.empty()) {
      properties.emplace_back("telemetry.unavailable", t.unavailable_reason);
    }
    return;
  }
  if (t.sm_clock_min_mhz) {
    properties.emplace_back("telemetry.sm_clock_min_mhz", std::to_string(*t.sm_clock_min_mhz));
    properties.emplace_back("telemetry.sm_clock_max_mhz", std::to_string(*t.sm_clock_max_mhz));
  }
  if (t.measured_sm_clock_min_mhz) {
    properties.emplace_back("telemetry.measured_sm_clock_min_mhz",
                            fmt::format("{:.0f}", *t.measured_sm_clock_min_mhz));
    properties.emplace_back("telemetry.measured_sm_clock_max_mhz",
                            fmt::format("{:.0f}", *t.measured_sm_clock_max_mhz));
  }
  if (t.max_temperature_c) {
    properties.emplace_back("telemetry.max_temperature_c", std::to_string(*t.max_temperature_c));
  }
  if (t.max_power_w) {
    properties.emplace_back("telemetry.max_power_w", fmt::format("{:.1f}", *t.max_power_w));
  }
  properties.emplace_back("telemetry.clock_events", detail::join_clock_events(t));
  properties.emplace_back("telemetry.throttled_trials",
                          std::to_string(t.throttling.throttled_trials));
  properties.emplace_back("telemetry.trials", std::to_string(t.throttling.trials));
}

// Each share of the peaks is its own property; the bound names which one the roofline time is.
void add_speed_of_light(property_list& properties, const speed_of_light& sol) {
  const auto add_pct = [&](const std::string& key, const std::optional<double>& pct) {
    if (pct) {
      properties.emplace_back(key, fmt::format("{:.3f}", *pct));
    }
  };
  properties.emplace_back("sol.bound", std::string(to_string(sol.bound)));
  add_pct("sol.compute_pct", sol.compute_pct);
  add_pct("sol.memory_pct", sol.memory_pct);
  properties.emplace_back("sol.roofline_ms", detail::fixed_ms(sol.roofline_ns));
  properties.emplace_back("sol.peak_source", sol.peak_source);
  if (sol.achievable) {
    add_pct("sol.achievable_compute_pct", sol.achievable->compute_pct);
    add_pct("sol.achievable_memory_pct", sol.achievable->memory_pct);
    properties.emplace_back("sol.achievable_source", sol.achievable->source);
  }
}

// What kerntime derived from the counters, as JSON names it; each only when derived.
void add_counters_derived(property_list& properties, const std::string& prefix,
                          const counters_derived& d) {
  const auto add = [&](const char* key, const std::optional<double>& value, const char* format) {
    if (value) {
      properties.emplace_back(prefix + key, fmt::format(fmt::runtime(format), *value));
    }
  };
  add("dram_bytes", d.dram_bytes, "{:.0f}");
  add("dram_bytes_per_second", d.dram_bytes_per_second, "{:.0f}");
  add("dram_fraction_of_peak", d.dram_fraction_of_peak, "{:.6f}");
  add("dram_percent_of_peak", d.dram_percent_of_peak, "{:.3f}");
  add("compute_percent_of_peak", d.compute_percent_of_peak, "{:.3f}");
  if (d.bound) {
    properties.emplace_back(prefix + "bound", std::string(to_string(*d.bound)));
  }
}

// A kernel's counters beside its kernel.N properties: the derived values, L2 hit rate and
// tensor-pipe utilisation.
void add_kernel_counters(property_list& properties, const std::string& key,
                         const kernel_counters_result& k) {
  add_counters_derived(properties, key + ".", k.derived);
  if (const auto hit = detail::metric_value(k, detail::l2_hit_rate_metric)) {
    properties.emplace_back(key + ".l2_hit_pct", fmt::format("{:.3f}", *hit));
  }
  if (const auto tensor = detail::metric_value(k, detail::tensor_pipe_metric)) {
    properties.emplace_back(key + ".tensor_pct", fmt::format("{:.3f}", *tensor));
  }
}

// The counter pass of the whole iteration, or why it did not run; nothing when not requested.
void add_counters(property_list& properties, const counters_summary& c) {
  if (c.status == counters_status::not_requested) {
    return;
  }
  properties.emplace_back("counters.status", std::string(to_string(c.status)));
  if (c.status == counters_status::unavailable) {
    properties.emplace_back("counters.unavailable", c.reason);
    return;
  }
  properties.emplace_back("counters.chip", c.chip);
  properties.emplace_back("counters.passes", std::to_string(c.passes));
  add_counters_derived(properties, "counters.", c.derived);
  for (std::size_t i = 0; i < c.mismatches.size(); ++i) {
    properties.emplace_back(fmt::format("counters.mismatch.{}", i + 1), c.mismatches[i]);
  }
}

// Every result is its own property, never a joined list: kernel names contain commas.
property_list properties_of(const benchmark_run& run) {
  property_list properties;
  for (const auto& [axis, value] : run.axes) {
    properties.emplace_back("axis." + axis, value);
  }
  if (run.status != run_status::ok || !run.result) {
    return properties;
  }
  const auto& r = *run.result;
  properties.emplace_back("latency_ms", detail::fixed_ms(r.latency_ns));
  properties.emplace_back("stdev_ms", detail::fixed_ms(r.stats.stdev));
  properties.emplace_back("cv", fmt::format("{:.6f}", r.stats.cv));
  properties.emplace_back("min_ms", detail::fixed_ms(r.stats.min));
  properties.emplace_back("max_ms", detail::fixed_ms(r.stats.max));
  properties.emplace_back("samples", std::to_string(r.stats.count));
  properties.emplace_back("trials", std::to_string(r.trials.size()));
  properties.emplace_back("stopping", detail::describe_stopping(r));
  if (r.stopping.half_width) {
    properties.emplace_back("median_ci_half_width", fmt::format("{:.6f}", *r.stopping.half_width));
  }
  properties.emplace_back("timing_backend", std::string(to_string(r.backend)));
  properties.emplace_back("backend_reason", r.backend_reason);
  if (r.protocol_used.launch != launch_mode::stream) { // absent: stream launches
    properties.emplace_back("launch", std::string(to_string(r.protocol_used.launch)));
  }
  if (auto tflops = detail::tflop_per_second(run)) {
    properties.emplace_back("tflop_per_s", fmt::format("{:.3f}", *tflops));
  }
  if (auto gbps = detail::gigabytes_per_second(run)) {
    properties.emplace_back("gb_per_s", fmt::format("{:.3f}", *gbps));
  }
  if (run.sol) {
    add_speed_of_light(properties, *run.sol);
  }
  if (r.energy.joules_per_iteration && r.energy.average_watts) {
    properties.emplace_back("energy.joules_per_iteration",
                            fmt::format("{:.6g}", *r.energy.joules_per_iteration));
    properties.emplace_back("energy.average_watts", fmt::format("{:.1f}", *r.energy.average_watts));
  } else if (!r.energy.available && !r.energy.unavailable_reason.empty()) {
    properties.emplace_back("energy.unavailable", r.energy.unavailable_reason);
  }
  add_counters(properties, r.counters);
  std::vector<const kernel_summary*> kernels;
  for (const auto& k : r.kernels) {
    kernels.push_back(&k);
  }
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const auto* a, const auto* b) { return a->mean_ns > b->mean_ns; });
  kernels.resize(std::min(kernels.size(), top_kernels));
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const std::string key = fmt::format("kernel.{}", i + 1);
    properties.emplace_back(key, kernels[i]->name);
    properties.emplace_back(key + ".kind", std::string(to_string(kernels[i]->kind)));
    properties.emplace_back(key + ".ms", detail::fixed_ms(kernels[i]->mean_ns));
    properties.emplace_back(key + ".share", fmt::format("{:.6f}", kernels[i]->share));
    if (const auto* counters = detail::kernel_counters_of(r.counters, kernels[i]->name)) {
      add_kernel_counters(properties, key, *counters);
    }
  }
  add_telemetry(properties, r);
  for (std::size_t i = 0; i < r.warnings.size(); ++i) {
    properties.emplace_back(fmt::format("warning.{}", i + 1), r.warnings[i]);
  }
  return properties;
}

class junit_writer final : public report_writer {
public:
  explicit junit_writer(junit_family family) : family_(family) {}

private:
  void do_print(std::ostream& out, const run_context& context,
                std::span<const benchmark_run> runs) override {
    using detail::xml_escape;
    std::size_t failures = 0;
    std::size_t skipped = 0;
    double seconds = 0;
    for (const auto& run : runs) {
      failures += run.status == run_status::failed ? 1 : 0;
      skipped += run.status == run_status::skipped ? 1 : 0;
      seconds += testcase_seconds(run);
    }
    const auto counts =
        fmt::format(R"(tests="{}" failures="{}" errors="0")", runs.size(), failures);
    const auto suite_counts =
        fmt::format(R"({} skipped="{}" time="{:.3f}")", counts, skipped, seconds);
    out << R"(<?xml version="1.0" encoding="UTF-8"?>)" << '\n';
    // junit-10.xsd has no "skipped" on <testsuites>; xunit1 keeps it, as pytest writes it.
    out << R"(<testsuites name="kerntime" )"
        << (family_ == junit_family::xunit1 ? suite_counts
                                            : fmt::format(R"({} time="{:.3f}")", counts, seconds))
        << ">\n";
    out << R"(  <testsuite name="kerntime" )" << suite_counts << R"( timestamp=")"
        << xml_escape(context.date) << R"(" hostname=")" << xml_escape(context.host_name)
        << "\">\n";
    property_list suite = {{"kerntime_version", context.kerntime_version},
                           {"command_line", context.command_line}};
    if (context.device) {
      suite.emplace_back("device", context.device->name);
    }
    if (family_ == junit_family::xunit2) {
      for (const auto& run : runs) {
        for (auto& [name, value] : properties_of(run)) {
          suite.emplace_back(run.state_name + "." + name, std::move(value));
        }
      }
    }
    out << detail::xml_properties(suite, "    ");
    for (const auto& run : runs) {
      out << R"(    <testcase classname=")" << xml_escape(run.benchmark) << R"(" name=")"
          << xml_escape(run.state_name) << R"(" time=")"
          << fmt::format("{:.3f}", testcase_seconds(run)) << "\">\n";
      if (family_ == junit_family::xunit1) {
        out << detail::xml_properties(properties_of(run), "      ");
      }
      if (run.status == run_status::failed) {
        out << R"(      <failure message=")" << xml_escape(run.message) << R"(" type=")"
            << xml_escape(detail::error_kind_text(run)) << "\">" << xml_escape(run.message)
            << "</failure>\n";
      } else if (run.status == run_status::skipped) {
        out << R"(      <skipped message=")" << xml_escape(run.message) << "\"/>\n";
      }
      out << "    </testcase>\n";
    }
    out << "  </testsuite>\n</testsuites>\n";
  }

  // The state's whole wall time where the runner measured it (failed states included), else
  // the measurement's.
  static double testcase_seconds(const benchmark_run& run) {
    if (run.wall_seconds > 0) {
      return run.wall_seconds;
    }
    return run.result ? run.result->wall_seconds : 0.0;
  }

  junit_family family_;
};

} // namespace

std::unique_ptr<report_writer> make_junit_writer(junit_family family) {
  return std::make_unique<junit_writer>(family);
}

} // namespace kerntime
