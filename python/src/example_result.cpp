// A fixed measurement_result for the CPU-only Python tests: the tests of Result, serialisation
// and the pytest plugin need a result the real C++ writers can render, on machines without a
// GPU. It is labelled as a fixture wherever it is shown, and is not part of the public API.

#include <pybind11/pybind11.h>

#include <span>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "kerntime/errors.hpp"
#include "kerntime/result.hpp"
#include "kerntime/statistics.hpp"

namespace py = pybind11;

namespace kerntime::python {
namespace {

// Per-iteration durations in ns of the fixture's one kernel, for two trials of four iterations;
// with more trials they repeat (trial t is row t % 2), so the trials' medians alternate as real
// trials' do. The kernel name has commas, angle brackets and quotes, as real template kernels do.
constexpr double kernel_ns[2][4] = {{10000, 10100, 9900, 10300}, {10200, 10000, 10400, 10100}};
constexpr double memset_ns = 1000;    // a workspace memset launched by the same call
constexpr double launch_gap_ns = 250; // idle time between the two records inside the span
constexpr const char* kernel_name = "void gemm<float, 128>(params<\"tn\", 3>, int)";

kernel_summary summarise_kernel(std::string name, activity_kind kind,
                                const std::vector<double>& per_iteration, double mean_busy) {
  const summary_statistics s = summarise_values(per_iteration);
  kernel_summary k;
  k.name = std::move(name);
  k.kind = kind;
  k.calls_per_iteration = 1;
  k.mean_ns = s.mean;
  k.median_ns = s.median;
  k.share = s.mean / mean_busy;
  return k;
}

measurement_result example_result(double scale, const std::string& backend, int trials,
                                  bool h200_peaks) {
  if (!(scale > 0)) {
    throw invalid_argument("scale must be positive");
  }
  if (trials < 1) {
    throw invalid_argument("trials must be at least 1");
  }
  measurement_result r;
  r.protocol_used.warmup = 2;
  r.protocol_used.trials = trials;
  r.protocol_used.repeats = 4;
  r.device.name = "example device (kerntime test fixture)";
  r.device.compute_capability_major = 9;
  r.device.multiprocessors = 132;
  r.device.l2_bytes = 60u << 20u;
  if (h200_peaks) { // an H200's facts as CUDA reports them, for the speed-of-light tests
    r.device.peak_sm_clock_khz = 1980000;
    r.device.memory_clock_khz = 3201000;
    r.device.memory_bus_width_bits = 6016;
  }
  if (backend == "cupti") {
    r.backend = timing_backend::cupti;
    r.backend_reason = "test fixture: CUPTI requested";
  } else if (backend == "events") {
    r.backend = timing_backend::events;
    r.backend_reason = "test fixture: CUPTI unavailable";
  } else {
    throw invalid_argument("backend must be \"cupti\" or \"events\"");
  }
  r.flush_bytes = 2 * r.device.l2_bytes;
  r.telemetry.unavailable_reason = "test fixture: no NVML reading";
  r.warnings.push_back("example result built for kerntime's tests; not a measurement");
  r.phases.prepare = 0.004;
  r.phases.trials = 0.02;
  r.phases.telemetry = 0.001;
  r.wall_seconds = 0.024;

  std::vector<std::vector<double>> spans_per_trial;
  std::vector<double> spans, busys, kernels, memsets;
  for (int t = 0; t < trials; ++t) {
    const auto& trial_kernels = kernel_ns[t % 2];
    trial_result trial;
    std::vector<double> trial_spans;
    for (const double k : trial_kernels) {
      const double busy = (k + memset_ns) * scale;
      const double span = busy + launch_gap_ns * scale;
      trial.iterations.push_back({span, busy});
      trial_spans.push_back(span);
      spans.push_back(span);
      busys.push_back(busy);
      kernels.push_back(k * scale);
      memsets.push_back(memset_ns * scale);
    }
    trial.telemetry.measured_sm_clock_mhz = std::nullopt;
    r.trials.push_back(std::move(trial));
    spans_per_trial.push_back(std::move(trial_spans));
  }
  r.span = summarise_values(spans);
  r.busy = summarise_values(busys);
  r.stats = r.span;
  r.latency_ns = r.stats.median;
  r.trials_summary = summarise_trials(spans_per_trial);
  r.stopping.trials = trials;
  r.stopping.warmup_iterations = r.protocol_used.warmup;
  r.stopping.median_interval = median_interval(r.trials_summary.medians);
  if (r.stopping.median_interval) {
    r.stopping.half_width =
        relative_half_width(*r.stopping.median_interval, median(r.trials_summary.medians));
  }
  if (r.backend == timing_backend::cupti) {
    r.kernels.push_back(summarise_kernel(kernel_name, activity_kind::kernel, kernels, r.busy.mean));
    r.kernels.push_back(
        summarise_kernel("[CUDA memset]", activity_kind::memset, memsets, r.busy.mean));
    for (int i = 0; i < 4; ++i) {
      const double start = r.trials[0].iterations[i].span_ns * i;
      const double memset_end = start + memset_ns * scale;
      const double kernel_start = memset_end + launch_gap_ns * scale;
      r.trace.push_back({"[CUDA memset]", activity_kind::memset, i, 7, start, memset_end});
      r.trace.push_back({kernel_name, activity_kind::kernel, i, 7, kernel_start,
                         kernel_start + kernel_ns[0][i] * scale});
    }
  }
  return r;
}

} // namespace

void bind_example_result(py::module_& m) {
  m.def("_example_result", &example_result, py::arg("scale") = 1.0, py::arg("backend") = "cupti",
        py::arg("trials") = 2, py::arg("h200_peaks") = false,
        "Internal, for tests: a fixed measurement_result (times multiplied by `scale`; with "
        "h200_peaks, an H200's clocks and bus width, so the peak table applies).");
}

} // namespace kerntime::python
