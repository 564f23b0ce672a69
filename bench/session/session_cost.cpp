// What a session (kerntime/session.hpp) costs the user's own CUDA work between measurements, and
// what it saves the measurements: docs/queue.md, "Inside a session".
//
// Part 1, the back-to-back probe (back_to_back.hpp), in one process, in this order: CUPTI never
// attached; after one measurement timed with CUDA events (the control); inside a session after a
// real measurement (CUPTI kept initialised, nothing enabled); while a CUPTI session is attached
// with kerntime's six activity kinds (the sensitivity check: the DESIGN saw instrumented kernels
// take twice their time); kept again after it; and after the session's end finalized CUPTI. Median
// of 7 probes each.
//
// Part 2, the fixed cost (wall - trials) of a 10 us spin measurement outside a session and
// inside one after its first measurement, and the wall of a --stop-at-ci 0.5 decision on a 20 us
// spin inside a session.
//
// Part 3, a lone small kernel (the suite's tiny_kernel/kernels=1) measured in rounds: twice with
// CUPTI attached afresh (outside a session), then in a session its first measurement and two with
// CUPTI kept; one process and one set of counters, so where memory landed is the same for all.
// On an H100 the suite read this state 3 timer steps lower in a session than without one, in
// separate processes (docs/queue.md, D); this tells the attach from the process.
//
// --check: exit 1 when kept or after-finalize reads more than 5 % + 20 ns per kernel above the
// control: after a measurement timed with CUDA events, before CUPTI was ever attached (a GPU test,
// scripts/gpu_check.sh), 77 without a CUDA device.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "back_to_back.hpp"
#include "cupti/cupti_library.hpp"
#include "cupti/cupti_session.hpp"
#include "kerntime/cuda.hpp"
#include "kerntime/measure.hpp"
#include "kerntime/session.hpp"
#include "kerntime/statistics.hpp"
#include "lone_kernel.hpp"
#include "result_line.hpp"
#include "spin_kernel.hpp"

namespace {

constexpr int probes = 7;

// The median of `probes` readings, printed as one RESULT line.
kerntime::bench::probe_reading report(kerntime::bench::back_to_back& probe,
                                      const std::string& state) {
  std::vector<double> gpu;
  std::vector<double> host;
  std::vector<double> mhz;
  for (int i = 0; i < probes; ++i) {
    const kerntime::bench::probe_reading r = probe.read();
    gpu.push_back(r.gpu_us_per_kernel);
    host.push_back(r.host_us_per_launch);
    mhz.push_back(r.sm_clock_mhz);
  }
  const kerntime::bench::probe_reading median{kerntime::median(gpu), kerntime::median(host),
                                              kerntime::median(mhz)};
  kerntime::bench::result_line("session_back_to_back")
      .add("cupti", state)
      .add("gpu_us_per_kernel", median.gpu_us_per_kernel)
      .add("gpu_us_min", *std::min_element(gpu.begin(), gpu.end()))
      .add("gpu_us_max", *std::max_element(gpu.begin(), gpu.end()))
      .add("host_us_per_launch", median.host_us_per_launch)
      .add("sm_clock_mhz", median.sm_clock_mhz)
      .add("gpu_cycles_per_kernel", median.gpu_us_per_kernel * median.sm_clock_mhz)
      .print();
  return median;
}

kerntime::measurement_result measure_spin(std::chrono::nanoseconds duration,
                                          const kerntime::protocol& p = {}) {
  return kerntime::measure(
      [&](cudaStream_t s, int) { kerntime::testkit::launch_spin(s, duration); }, p);
}

double fixed_ms(const kerntime::measurement_result& r) {
  return 1e3 * (r.wall_seconds - r.phases.trials);
}

void report_fixed_cost(const std::string& where, const std::vector<double>& ms) {
  kerntime::bench::result_line("session_fixed_cost")
      .add("where", where)
      .add("median_ms", kerntime::median(ms))
      .add("min_ms", *std::min_element(ms.begin(), ms.end()))
      .add("max_ms", *std::max_element(ms.begin(), ms.end()))
      .print();
}

// Part 3: the lone kernel's readings, by how CUPTI was held (above). One RESULT line a way.
struct lone_kernel_readings {
  std::vector<double> medians;
  std::vector<double> means;
  void add(const kerntime::measurement_result& r) {
    medians.push_back(r.latency_ns);
    means.push_back(r.stats.mean);
  }
};

void report_lone_kernel() {
  constexpr int rounds = 6;
  kerntime::device_buffer<int> counters{8};
  const auto work = [&](cudaStream_t s, int set) {
    kerntime::bench::launch_increment(s, counters.data() + set);
  };
  lone_kernel_readings fresh;
  lone_kernel_readings first;
  lone_kernel_readings kept;
  double step = 0;
  for (int round = 0; round < rounds; ++round) {
    for (int i = 0; i < 2; ++i) {
      const auto r = kerntime::measure(work);
      fresh.add(r);
      step = r.timer_resolution_ns;
    }
    const kerntime::session scope;
    first.add(kerntime::measure(work));
    for (int i = 0; i < 2; ++i) {
      kept.add(kerntime::measure(work));
    }
  }
  for (const auto& [cupti, readings] :
       {std::pair{"attached_afresh", &fresh}, std::pair{"first_in_session", &first},
        std::pair{"kept_in_session", &kept}}) {
    const auto& medians = readings->medians;
    kerntime::bench::result_line("session_lone_kernel")
        .add("cupti", cupti)
        .add("measurements", static_cast<double>(medians.size()))
        .add("median_of_medians_ns", kerntime::median(medians))
        .add("min_median_ns", *std::min_element(medians.begin(), medians.end()))
        .add("max_median_ns", *std::max_element(medians.begin(), medians.end()))
        .add("median_of_means_ns", kerntime::median(readings->means))
        .add("timer_step_ns", step)
        .print();
  }
}

} // namespace

int main(int argc, char** argv) {
  const bool check = argc > 1 && std::strcmp(argv[1], "--check") == 0;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("skipped: no CUDA device on this machine (the H200 runs this)");
    return 77;
  }
  using kerntime::bench::probe_reading;
  using std::chrono::microseconds;
  kerntime::bench::back_to_back probe;
  const probe_reading never = report(probe, "never_attached");
  // The control: one measurement timed with CUDA events (kerntime's flush, blocking kernel,
  // telemetry and clock check; no CUPTI), so what CUPTI leaves is told from what they do.
  kerntime::protocol by_events;
  by_events.backend = kerntime::backend_request::events;
  (void)measure_spin(microseconds(10), by_events);
  const probe_reading control = report(probe, "after_an_event_timed_measurement");
  probe_reading kept;
  probe_reading kept_after;
  probe_reading attached;
  {
    const kerntime::session scope;
    (void)measure_spin(microseconds(10));
    kept = report(probe, "kept_after_a_measurement");
    {
      auto loaded = kerntime::detail::load_cupti();
      if (const auto* library = std::get_if<const kerntime::detail::cupti_library*>(&loaded)) {
        kerntime::detail::attach_outcome outcome;
        kerntime::detail::cupti_session session(**library, outcome);
        if (outcome.attached) {
          attached = report(probe, "attached_six_kinds");
        }
        (void)session.detach();
      }
    }
    kept_after = report(probe, "kept_after_attached");
  }
  const probe_reading finalized = report(probe, "after_finalize");
  report_lone_kernel();

  // Part 2: fixed costs and the decision.
  constexpr int measurements = 5;
  std::vector<double> alone;
  alone.reserve(measurements);
  for (int i = 0; i < measurements; ++i) {
    alone.push_back(fixed_ms(measure_spin(microseconds(10))));
  }
  report_fixed_cost("no_session", alone);
  std::vector<double> inside;
  std::vector<double> decision_ms;
  std::vector<double> decision_error_ns;
  {
    const kerntime::session scope;
    const kerntime::measurement_result first = measure_spin(microseconds(10));
    kerntime::bench::result_line("session_first_measurement")
        .add("fixed_ms", fixed_ms(first))
        .print();
    for (int i = 0; i < measurements; ++i) {
      inside.push_back(fixed_ms(measure_spin(microseconds(10))));
    }
    kerntime::protocol stop;
    stop.stop_at_ci = 0.5;
    for (int i = 0; i < measurements; ++i) {
      const kerntime::measurement_result r = measure_spin(microseconds(20), stop);
      decision_ms.push_back(1e3 * r.wall_seconds);
      decision_error_ns.push_back(r.latency_ns - 20'000.0);
    }
  }
  report_fixed_cost("in_session", inside);
  kerntime::bench::result_line("session_stop_at_ci")
      .add("spin_us", 20.0)
      .add("median_wall_ms", kerntime::median(decision_ms))
      .add("max_wall_ms", *std::max_element(decision_ms.begin(), decision_ms.end()))
      .add("median_error_ns", kerntime::median(decision_error_ns))
      .add("target_ms", 40.0)
      .print();

  // Against the control: what CUPTI adds beyond the rest of a measurement.
  const auto within = [&](const probe_reading& r) {
    return r.gpu_us_per_kernel <= (control.gpu_us_per_kernel * 1.05) + 0.02;
  };
  const bool sensitive = attached.gpu_us_per_kernel > control.gpu_us_per_kernel * 1.05;
  kerntime::bench::result_line("session_back_to_back_check")
      .add("kept_within", within(kept) && within(kept_after) ? "yes" : "no")
      .add("after_finalize_within", within(finalized) ? "yes" : "no")
      .add("probe_sees_attached_cupti", sensitive ? "yes" : "no")
      .print();
  if (check && (!within(kept) || !within(kept_after) || !within(finalized))) {
    std::fprintf(stderr,
                 "GPU time per back-to-back kernel rose with CUPTI kept or finalized: "
                 "never %.4f us, kept %.4f / %.4f us, after finalize %.4f us\n",
                 never.gpu_us_per_kernel, kept.gpu_us_per_kernel, kept_after.gpu_us_per_kernel,
                 finalized.gpu_us_per_kernel);
    return 1;
  }
  return 0;
}
