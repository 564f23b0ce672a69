#include "sample_runs.hpp"

namespace kerntime::test {

std::string long_template_name() {
  std::string name = "void cutlass::device_kernel<cutlass::gemm::GemmUniversal<\"bf16\", a&b|c, ";
  while (name.size() < 2048) {
    name += "cute::tuple<cute::C<128>, cute::C<256>>, ";
  }
  name += "Params<'x'>>(Params const&, int*)";
  return name;
}

std::string tricky_kernel_name() {
  return "\xE6\xA0\xB8\xE5\x87\xBD\xE6\x95\xB0<float, `tick`, \"q\">\n|tab\t\x01";
}

run_context sample_context() {
  run_context context;
  context.kerntime_version = "0.1.0";
  context.command_line = "kerntime run --json out.json";
  context.host_name = "gpu-node-7";
  context.date = "2026-01-02T03:04:05Z";
  device_info device;
  device.name = "NVIDIA H200";
  device.compute_capability_major = 9;
  device.multiprocessors = 132;
  device.l2_bytes = 62914560;
  device.memory_bytes = 150754820096;
  device.driver_version = 13000;
  device.runtime_version = 13000;
  context.device = device;
  context.telemetry.available = true;
  context.telemetry.name = "NVIDIA H200";
  context.telemetry.uuid = "GPU-0000";
  context.telemetry.driver_version = "580.65.06";
  context.telemetry.max_sm_clock_mhz = 1980;
  context.telemetry.power_limit_w = 700.0;
  context.telemetry.clocks_locked = false;
  context.shard = shard_spec{1, 4}; // run --shard 1/4 of a plan of 14 states
  context.plan_states = 14;
  return context;
}

namespace {

summary_statistics statistics(double median, double mean, double stdev) {
  summary_statistics s;
  s.count = 6;
  s.median = median;
  s.mean = mean;
  s.stdev = stdev;
  s.min = median - 1000;
  s.max = median + 2500.5;
  s.p10 = median - 800;
  s.p90 = median + 2000;
  s.cv = stdev / mean;
  return s;
}

gpu_snapshot snapshot(unsigned sm_clock, double power, unsigned temperature,
                      std::vector<std::string> events) {
  gpu_snapshot s;
  s.sm_clock_mhz = sm_clock;
  s.memory_clock_mhz = 3201;
  s.power_w = power;
  s.temperature_c = temperature;
  s.clock_event_reasons = 0; // the bits of the names, as NVML sets them
  for (const std::string& name : events) {
    *s.clock_event_reasons |= name == "hw_slowdown" ? 0x8U : 0x4U; // else sw_power_cap
  }
  s.clock_event_names = std::move(events);
  return s;
}

// A run of one state, named as the plan names it.
benchmark_run state_run(std::string benchmark,
                        std::vector<std::pair<std::string, std::string>> axes) {
  benchmark_run run;
  run.benchmark = std::move(benchmark);
  run.axes = std::move(axes);
  run.state_name = make_state_name(run.benchmark, run.axes);
  return run;
}

// A measured result's identity: its protocol, device and timer.
measurement_result result_of(int trials, int repeats, timing_backend backend, std::string reason) {
  measurement_result r;
  r.protocol_used.trials = trials;
  r.protocol_used.repeats = repeats;
  r.stopping.trials = trials;
  r.stopping.warmup_iterations = r.protocol_used.warmup;
  r.device = *sample_context().device;
  r.backend = backend;
  r.backend_reason = std::move(reason);
  r.cupti = backend == timing_backend::cupti ? cupti_mode::subscribed : cupti_mode::none;
  return r;
}

benchmark_run ok_run() {
  measurement_result r = result_of(2, 3, timing_backend::cupti, "CUPTI attached");
  r.latency_ns = 175312.5;
  r.stats = statistics(175312.5, 175800.25, 1204.75);
  r.span = r.stats;
  r.busy = statistics(170000, 170400.5, 1100);
  r.trials_summary.means = {175000.0, 176600.5};
  r.trials_summary.medians = {174900.0, 176000.0};
  r.trials_summary.mean_of_means = 175800.25;
  r.trials_summary.median_of_means = 175800.25;
  r.trials_summary.stdev_of_means = 1131.72;
  r.trials_summary.cv_of_means = 0.0064377;
  trial_result first;
  first.iterations = {{174000, 169000}, {175312.5, 170000}, {175687.5, 170500}};
  first.telemetry.before = snapshot(1980, 120.5, 41, {});
  first.telemetry.after = snapshot(1755, 412.25, 62, {"sw_power_cap"});
  first.telemetry.measured_sm_clock_mhz = 1741.6;
  first.telemetry.sm_clock_fraction = 1741.6 / 1980.0;
  first.telemetry.throttled = true;
  first.telemetry.throttle_reason =
      "SM clock 1742 MHz measured on the GPU is 88.0 % of the maximum 1980 MHz (threshold 90 %)";
  trial_result second;
  second.iterations = {{176000, 171000}, {176900, 171200}, {176901.5, 170702.5}};
  second.telemetry.before = snapshot(1980, 130.0, 45, {});
  second.telemetry.after = snapshot(1965, 398.0, 58, {"sw_power_cap", "hw_slowdown"});
  second.telemetry.measured_sm_clock_mhz = 1975.0;
  second.telemetry.sm_clock_fraction = 1975.0 / 1980.0;
  r.trials = {first, second};
  r.kernels = {
      {tricky_kernel_name(), activity_kind::memset, 2, 2400.25, 2400, 0.0141},
      {long_template_name(), activity_kind::kernel, 1, 168000.5, 167900, 0.9859},
  };
  r.trace = {
      {tricky_kernel_name(), activity_kind::memset, 0, 7, 0, 1200},
      {long_template_name(), activity_kind::kernel, 0, 7, 1300, 169300},
      {tricky_kernel_name(), activity_kind::memset, 1, 13, 175000, 176200.5},
      {long_template_name(), activity_kind::kernel, 1, 7, 176300, 344300},
  };
  r.telemetry = sample_context().telemetry;
  r.warnings = {"kernel set differs in iteration 3: saw `fill<int>` | twice",
                "throttled: 1 of 2 trials below 90 % of max SM clock: 1742 MHz, 88 %; their "
                "samples are kept"};
  r.wall_seconds = 0.25;
  r.flush_bytes = 125829120;
  r.energy.available = true;
  r.energy.joules_per_iteration = 0.0912;
  r.energy.average_watts = 520.4;
  r.energy.window_s = 2.5;            // 520.4 W over 2.5 s = 1301 J
  r.energy.window_iterations = 14265; // 1301 J / 0.0912 J

  benchmark_run run = state_run("gemm_bf16", {{"M", "4096"}, {"N", "4096"}});
  run.result = std::move(r);
  run.flops = 2.0 * 4096 * 4096 * 4096;
  run.bytes = 3.0 * 4096 * 4096 * 2;
  run.flops_precision = flop_precision::bf16_tensor;
  // An H200's table peaks: 137.4 TFLOP in 175.3 µs is 73.2 % of 1070.5 TFLOP/s.
  speed_of_light sol;
  sol.precision = flop_precision::bf16_tensor;
  sol.peak_flops_per_s = 1070.53056e12;
  sol.peak_bytes_per_s = 4814.304e9;
  sol.compute_pct = 73.231;
  sol.memory_pct = 11.927;
  sol.bound = roofline_bound::compute;
  sol.roofline_ns = 128384.0;
  sol.peak_source = "table sm_90: 132 SMs × 1980 MHz × FLOP/clk/SM; DRAM 2 × 3201 MHz × 6016 bit";
  sol.achievable = achievable_speed_of_light{1085.2e12, 4265.3e9, 72.24, 13.462,
                                             "calibration.json (NVIDIA H200, 2026-12-01)"};
  run.sol = sol;
  run.device =
      run_device{"gpu-node-7", 1, "NVIDIA H200", "GPU-8c3f0b2e-1d2c-4e5f-8a9b-0c1d2e3f4a5b"};
  run.plan_index = 1;
  return run;
}

} // namespace

std::vector<benchmark_run> sample_runs() {
  std::vector<benchmark_run> runs;
  runs.push_back(ok_run());

  benchmark_run failed = state_run("gemm_bf16", {{"M", "8192"}, {"N", "4096"}});
  failed.status = run_status::failed;
  failed.wall_seconds = 0.375; // failed states carry the time they ran
  failed.error = error_kind::benchmark_failed;
  failed.message = "benchmark failed during trial 1: CUDA error cudaErrorIllegalAddress, "
                   "\"kernel <a&b>\"\nsee compute-sanitizer";
  failed.flops = 2.0 * 8192 * 4096 * 4096;
  failed.device = run_device{"gpu-node-7", 0, "NVIDIA H200", "GPU-0000"};
  failed.plan_index = 5;
  runs.push_back(failed);

  benchmark_run skipped = state_run("gemm_bf16", {{"M", "16384"}, {"N", "4096"}});
  skipped.status = run_status::skipped;
  skipped.message = "needs 3 GiB, device has 2, sorry";
  runs.push_back(skipped);

  measurement_result events =
      result_of(1, 2, timing_backend::events,
                "CUPTI unavailable: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
  // Adaptive rules, ended by their bounds: the stopping line and its warnings in every format.
  events.protocol_used.warmup_auto = true;
  events.protocol_used.stop_at_ci = 0.5;
  events.protocol_used.max_time_s = 0.01;
  events.stopping.reason = stop_reason::max_time;
  events.stopping.warmup_iterations = 1000;
  events.stopping.warmup_settled = false;
  events.latency_ns = 13500;
  events.stats = statistics(13500, 13600, 150);
  events.span = events.stats;
  events.busy = events.stats;
  events.trials_summary.means = {13600};
  events.trials_summary.medians = {13500};
  events.trials_summary.mean_of_means = 13600;
  events.trials_summary.median_of_means = 13600;
  trial_result only;
  only.iterations = {{13500, 13500}, {13700, 13700}};
  events.trials = {only};
  events.telemetry.unavailable_reason = "libnvidia-ml.so.1 not found";
  events.wall_seconds = 0.0125;
  benchmark_run copy = state_run("device_copy", {{"bytes", "16777216"}, {"l2", "cold"}});
  copy.result = std::move(events);
  copy.bytes = 2.0 * 16777216;
  runs.push_back(copy);
  return runs;
}

} // namespace kerntime::test
