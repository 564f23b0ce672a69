#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kerntime/report.hpp"
#include "report/detail/benchmark_groups.hpp"
#include "report/detail/counters_text.hpp"
#include "report/detail/roofline_text.hpp"
#include "report/detail/stopping_text.hpp"
#include "report/detail/telemetry_summary.hpp"
#include "report/detail/text.hpp"
#include "report/detail/units.hpp"

namespace kerntime {
namespace {

// Long template instantiations are shortened on screen only; JSON, CSV and JUnit keep them whole.
constexpr std::size_t kernel_name_width = 96;
constexpr std::string_view no_value = "\xE2\x80\x93"; // en dash

std::string axis_value(const benchmark_run& run, const std::string& axis) {
  for (const auto& [name, value] : run.axes) {
    if (name == axis) {
      return detail::markdown_text(value);
    }
  }
  return std::string(no_value);
}

void print_row(std::ostream& out, const std::vector<std::string>& cells) {
  out << '|';
  for (const auto& cell : cells) {
    out << ' ' << cell << " |";
  }
  out << '\n';
}

// Numbers are right-aligned, text left-aligned.
void print_header(std::ostream& out, const std::vector<std::string>& names,
                  const std::vector<bool>& numeric) {
  print_row(out, names);
  out << '|';
  for (bool right : numeric) {
    out << (right ? " --: |" : " :-- |");
  }
  out << '\n';
}

std::string optional_number(const std::optional<double>& value) {
  return value ? fmt::format("{:.2f}", *value) : std::string(no_value);
}

std::string calls(double calls_per_iteration) {
  if (calls_per_iteration == std::floor(calls_per_iteration)) {
    return fmt::format("{:.0f}", calls_per_iteration);
  }
  return fmt::format("{:.2f}", calls_per_iteration);
}

// The GPUs the runs measured on, by ordinal, when there are several (a --devices run): each
// state's row then names its GPU.
std::vector<run_device> devices_used(std::span<const benchmark_run> runs) {
  std::vector<run_device> devices;
  for (const auto& run : runs) {
    if (run.device && std::none_of(devices.begin(), devices.end(), [&](const run_device& d) {
          return d.ordinal == run.device->ordinal && d.uuid == run.device->uuid &&
                 d.host == run.device->host;
        })) {
      devices.push_back(*run.device);
    }
  }
  return devices;
}

void print_devices(std::ostream& out, const std::vector<run_device>& devices) {
  out << "GPUs:";
  for (const auto& d : devices) {
    out << fmt::format(
        "{}{}", &d == devices.data() ? " " : "; ",
        detail::markdown_text(fmt::format("{} = {} ({}{}{})", d.ordinal, d.name, d.uuid,
                                          d.host.empty() ? "" : " on ", d.host)));
  }
  out << "\n\n";
}

// "73.2% compute": the share of the peak for the bound the roofline names (the larger share).
std::string speed_of_light_cell(const benchmark_run& run) {
  const auto text =
      run.sol ? detail::bound_share_text(run.sol->bound, run.sol->compute_pct, run.sol->memory_pct)
              : std::string();
  return text.empty() ? std::string(no_value) : text;
}

std::string achievable_cell(const benchmark_run& run) {
  if (!run.sol || !run.sol->achievable) {
    return std::string(no_value);
  }
  const auto& a = *run.sol->achievable;
  const auto text = detail::bound_share_text(run.sol->bound, a.compute_pct, a.memory_pct);
  return text.empty() ? std::string(no_value) : text;
}

std::string energy_cell(const measurement_result& r) {
  return r.energy.joules_per_iteration ? detail::energy_text(*r.energy.joules_per_iteration)
                                       : std::string(no_value);
}

void print_state_table(std::ostream& out, const detail::benchmark_group& group,
                       std::span<const benchmark_run> runs, bool name_gpu) {
  const detail::optional_columns columns = detail::columns_of(group, runs);
  std::vector<std::string> header;
  std::vector<bool> numeric;
  for (const auto& axis : group.axes) {
    header.push_back(detail::markdown_text(axis));
    numeric.push_back(false);
  }
  for (const char* column : {"latency", "stdev", "CV"}) {
    header.emplace_back(column);
    numeric.push_back(true);
  }
  if (columns.preparation) {
    // How far the state moves from one fresh preparation to the next: a floor under comparing it.
    header.emplace_back("between preparations");
    numeric.push_back(true);
  }
  if (columns.flops) {
    header.emplace_back("TFLOP/s");
    numeric.push_back(true);
  }
  if (columns.bytes) {
    header.emplace_back("GB/s");
    numeric.push_back(true);
  }
  if (columns.sol) {
    header.emplace_back("SOL");
    numeric.push_back(true);
  }
  if (columns.achievable) {
    header.emplace_back("of achievable");
    numeric.push_back(true);
  }
  if (columns.energy) {
    header.emplace_back("energy/iter");
    numeric.push_back(true);
  }
  header.emplace_back("backend");
  numeric.push_back(false);
  if (columns.launch) {
    header.emplace_back("launch");
    numeric.push_back(false);
  }
  if (name_gpu) {
    header.emplace_back("GPU");
    numeric.push_back(true);
  }
  print_header(out, header, numeric);

  for (const auto i : group.runs) {
    const auto* run = &runs[i];
    std::vector<std::string> cells;
    for (const auto& axis : group.axes) {
      cells.push_back(axis_value(*run, axis));
    }
    if (run->status == run_status::ok && run->result) {
      const auto& r = *run->result;
      cells.push_back(detail::human_duration(r.latency_ns));
      cells.push_back(detail::human_duration(r.stats.stdev));
      cells.push_back(detail::percent(r.stats.cv));
      if (columns.preparation) {
        cells.push_back(r.preparation_spread ? "±" + detail::percent(*r.preparation_spread)
                                             : std::string(no_value));
      }
      if (columns.flops) {
        cells.push_back(optional_number(detail::tflop_per_second(*run)));
      }
      if (columns.bytes) {
        cells.push_back(optional_number(detail::gigabytes_per_second(*run)));
      }
      if (columns.sol) {
        cells.push_back(speed_of_light_cell(*run));
      }
      if (columns.achievable) {
        cells.push_back(achievable_cell(*run));
      }
      if (columns.energy) {
        cells.push_back(energy_cell(r));
      }
      cells.emplace_back(to_string(r.backend));
      if (columns.launch) {
        cells.emplace_back(to_string(r.protocol_used.launch));
      }
      if (name_gpu) {
        cells.push_back(run->device ? std::to_string(run->device->ordinal) : std::string(no_value));
      }
    } else {
      // The state stays in the grid so a reader sees what is missing; the reason follows below.
      cells.push_back(run->status == run_status::failed ? "**failed**" : "skipped");
      const std::size_t remaining = header.size() - cells.size() - (name_gpu ? 1 : 0);
      cells.insert(cells.end(), remaining, std::string(no_value));
      if (name_gpu) { // where it failed matters: a fault names its GPU
        cells.push_back(run->device ? std::to_string(run->device->ordinal) : std::string(no_value));
      }
    }
    print_row(out, cells);
  }
  out << '\n';
}

// A value of the counter columns: one decimal, or a dash where this kernel has none.
std::string counter_cell(const std::optional<double>& value) {
  return value ? fmt::format("{:.1f}", *value) : std::string(no_value);
}

// The breakdown; with measured counters, a column for each counter some kernel has a value for.
void print_kernel_table(std::ostream& out, const measurement_result& r) {
  const detail::kernel_counter_columns columns = detail::kernel_counter_columns_of(r.counters);
  std::vector<std::string> header = {"kernel", "kind", "calls/iter", "mean", "median", "share"};
  std::vector<bool> numeric = {false, false, true, true, true, true};
  const auto add_column = [&](bool shown, const char* name, bool right) {
    if (shown) {
      header.emplace_back(name);
      numeric.push_back(right);
    }
  };
  add_column(columns.dram_bytes, "DRAM bytes", true);
  add_column(columns.dram_percent, "DRAM %", true);
  add_column(columns.l2_hit_rate, "L2 hit %", true);
  add_column(columns.tensor, "tensor %", true);
  add_column(columns.bound, "bound", false);
  print_header(out, header, numeric);
  for (const auto& k : r.kernels) {
    std::vector<std::string> cells = {
        detail::markdown_code_span(detail::shorten_kernel_name(k.name, kernel_name_width),
                                   kernel_name_width),
        std::string(to_string(k.kind)),
        calls(k.calls_per_iteration),
        detail::human_duration(k.mean_ns),
        detail::human_duration(k.median_ns),
        fmt::format("{:.1f}%", k.share * 100.0)};
    const kernel_counters_result* c = detail::kernel_counters_of(r.counters, k.name);
    const auto value = [c](auto read) { return c ? read(*c) : std::optional<double>(); };
    if (columns.dram_bytes) {
      const auto bytes = value([](const auto& kc) { return kc.derived.dram_bytes; });
      cells.push_back(bytes ? detail::bytes_text(*bytes) : std::string(no_value));
    }
    if (columns.dram_percent) {
      cells.push_back(
          counter_cell(value([](const auto& kc) { return kc.derived.dram_percent_of_peak; })));
    }
    // A value outside its range is marked as the artefact it is; the list below says why.
    const auto metric_cell = [c](std::string_view metric) {
      if (c == nullptr) {
        return std::string(no_value);
      }
      const std::string cell = counter_cell(detail::metric_value(*c, metric));
      return detail::implausible_reason(c->derived, metric) != nullptr ? cell + " (artefact)"
                                                                       : cell;
    };
    if (columns.l2_hit_rate) {
      cells.push_back(metric_cell(detail::l2_hit_rate_metric));
    }
    if (columns.tensor) {
      cells.push_back(metric_cell(detail::tensor_pipe_metric));
    }
    if (columns.bound) {
      cells.push_back(c && c->derived.bound ? std::string(to_string(*c->derived.bound))
                                            : std::string(no_value));
    }
    print_row(out, cells);
  }
  out << '\n';
}

// The counter pass in one line, or why it did not run; its mismatches as a list. Nothing when
// counters were not requested.
void print_counters(std::ostream& out, const counters_summary& c) {
  if (c.status == counters_status::unavailable) {
    out << "counters unavailable: " << detail::markdown_text(c.reason) << "\n\n";
    return;
  }
  if (c.status != counters_status::measured) {
    return;
  }
  out << "Counters: " << detail::markdown_text(detail::describe_counters(c)) << "\n\n";
  std::vector<std::string> artefacts;
  for (const auto& k : c.kernels) {
    for (const auto& why : k.derived.implausible) {
      artefacts.push_back(k.name + ": " + why);
    }
  }
  for (const auto& why : c.derived.implausible) {
    artefacts.push_back("the iteration: " + why);
  }
  if (!artefacts.empty()) {
    out << "Counter artefacts (values outside their physical range, not measurements):\n\n";
    for (const auto& artefact : artefacts) {
      out << "- " << detail::markdown_text(artefact) << '\n';
    }
    out << '\n';
  }
  if (!c.mismatches.empty()) {
    out << "Counter mismatches:\n\n";
    for (const auto& mismatch : c.mismatches) {
      out << "- " << detail::markdown_text(mismatch) << '\n';
    }
    out << '\n';
  }
}

// "45.612 mJ per iteration, 512.3 W on average (NVML's energy counter over 5.712 s of trials, the
// L2 flushes and the gaps between trials included)", or why there is no reading.
std::string describe_energy(const energy_summary& e) {
  if (!e.available || !e.joules_per_iteration || !e.average_watts) {
    return "unavailable: " + e.unavailable_reason;
  }
  return fmt::format("{} per iteration, {:.1f} W on average{}",
                     detail::energy_text(*e.joules_per_iteration), *e.average_watts,
                     detail::energy_window_text(e));
}

// "roofline 140.2 µs (compute-bound: bf16_tensor 1070.5 TFLOP/s, DRAM 4915.2 GB/s); compute
// 73.2%, memory 5.0%; achievable (calibration.json …): compute 88.1%, memory 6.2%; peaks: …"
std::string describe_speed_of_light(const speed_of_light& sol) {
  const auto pct = [](std::optional<double> p) {
    return p ? fmt::format("{:.1f}%", *p) : std::string(no_value);
  };
  std::string peaks;
  if (sol.precision && sol.peak_flops_per_s) {
    peaks =
        fmt::format("{} {:.1f} TFLOP/s", to_string(*sol.precision), *sol.peak_flops_per_s / 1e12);
  }
  if (sol.peak_bytes_per_s) {
    peaks +=
        fmt::format("{}DRAM {:.1f} GB/s", peaks.empty() ? "" : ", ", *sol.peak_bytes_per_s / 1e9);
  }
  std::string text = fmt::format("roofline {} ({}-bound; peaks {}); compute {}, memory {}",
                                 detail::human_duration(sol.roofline_ns), to_string(sol.bound),
                                 peaks, pct(sol.compute_pct), pct(sol.memory_pct));
  if (sol.achievable) {
    text += fmt::format("; of achievable ({}): compute {}, memory {}", sol.achievable->source,
                        pct(sol.achievable->compute_pct), pct(sol.achievable->memory_pct));
  }
  text += "; peak source: " + sol.peak_source;
  for (const auto& note : sol.notes) {
    text += "; " + note;
  }
  return text;
}

// Everything about one state that does not fit its row: its kernels, telemetry, warnings, or
// why it failed or was skipped. Each part is its own block, never inside the state table.
void print_state_details(std::ostream& out, const benchmark_run& run) {
  out << "### " << detail::markdown_code_span(run.state_name, kernel_name_width) << "\n\n";
  if (run.status == run_status::failed) {
    out << "**failed**";
    if (run.error) {
      out << " (" << detail::markdown_text(detail::error_kind_text(run)) << ")";
    }
    out << ": " << detail::markdown_text(run.message) << "\n\n";
    return;
  }
  if (run.status == run_status::skipped || !run.result) {
    out << "skipped: " << detail::markdown_text(run.message) << "\n\n";
    return;
  }
  const auto& r = *run.result;
  if (!r.kernels.empty()) {
    print_kernel_table(out, r);
  } else if (r.backend == timing_backend::events) {
    out << "No per-kernel breakdown: timed with CUDA events";
    if (!r.backend_reason.empty()) {
      out << " (" << detail::markdown_text(r.backend_reason) << ")";
    }
    out << ".\n\n";
  }
  print_counters(out, r.counters);
  if (r.cupti == cupti_mode::shared_with_idle_torch_profiler) {
    out << "Timer: CUPTI, shared with an idle torch.profiler (docs/torch-profiler.md).\n\n";
  }
  if (detail::adaptive_stopping(r.protocol_used)) {
    out << "Stopping: " << detail::markdown_text(detail::describe_stopping(r)) << "\n\n";
  }
  const auto telemetry = detail::summarise_telemetry(r);
  if (const auto line = detail::describe(telemetry); !line.empty()) {
    out << "Telemetry: " << detail::markdown_text(line) << "\n\n";
  }
  if (const auto line = detail::describe_clock_events(telemetry.throttling); !line.empty()) {
    out << "Clock events: " << detail::markdown_text(line) << "\n\n";
  }
  // Without NVML the telemetry line already says why; energy has nothing to add.
  if (r.energy.available || (r.telemetry.available && !r.energy.unavailable_reason.empty())) {
    out << "Energy: " << detail::markdown_text(describe_energy(r.energy)) << "\n\n";
  }
  if (run.sol) {
    out << "Speed of light: " << detail::markdown_text(describe_speed_of_light(*run.sol)) << "\n\n";
  }
  if (!r.warnings.empty()) {
    out << "Warnings:\n\n";
    for (const auto& warning : r.warnings) {
      out << "- " << detail::markdown_text(warning) << '\n';
    }
    out << '\n';
  }
}

bool has_details(const benchmark_run& run) {
  if (run.status != run_status::ok || !run.result || run.sol) {
    return true;
  }
  const auto& r = *run.result;
  return !r.kernels.empty() || r.backend == timing_backend::events || !r.warnings.empty() ||
         r.counters.status != counters_status::not_requested ||
         detail::adaptive_stopping(r.protocol_used) ||
         !detail::describe(detail::summarise_telemetry(r)).empty();
}

class markdown_writer final : public report_writer {
  void do_print(std::ostream& out, const run_context&,
                std::span<const benchmark_run> runs) override {
    const auto devices = devices_used(runs);
    const bool name_gpu = devices.size() > 1;
    if (name_gpu) {
      print_devices(out, devices);
    }
    for (const auto& group : detail::group_by_benchmark(runs)) {
      out << "## " << detail::markdown_text(group.name) << "\n\n";
      print_state_table(out, group, runs, name_gpu);
      for (const auto i : group.runs) {
        if (has_details(runs[i])) {
          print_state_details(out, runs[i]);
        }
      }
    }
  }
};

} // namespace

std::unique_ptr<report_writer> make_markdown_writer() {
  return std::make_unique<markdown_writer>();
}

} // namespace kerntime
