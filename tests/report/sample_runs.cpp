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

std::string copy_kernel_name() {
  return "void copy_kernel<float4>(float4 const*, float4*, unsigned long)";
}

std::string gemm_kernel_name() {
  return "void gemm_bf16_tn<128, 256>(__nv_bfloat16 const*, __nv_bfloat16 const*, float*, int, "
         "int, int)";
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
  r.phases = {.prepare = 0.015625,
              .warmup = 0.0078125,
              .attach = 0.00390625,
              .first_calls = 0.0078125,
              .trials = 0.1875,
              .telemetry = 0.0078125,
              .detach = 0.00390625,
              .summarise = 0.0234375};
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

// A CUPTI-timed state of two kernels: a 256 MiB copy, then a bf16 GEMM, on the H200.
benchmark_run copy_then_gemm_run(const std::string& bytes, double latency_ns) {
  measurement_result r = result_of(2, 3, timing_backend::cupti, "CUPTI attached");
  r.protocol_used.counters = true;
  r.protocol_used.telemetry = false;
  r.telemetry.unavailable_reason = "telemetry off (telemetry=false)";
  r.latency_ns = latency_ns;
  r.stats = statistics(latency_ns, latency_ns + 150, 420.5);
  r.span = r.stats;
  r.busy = statistics(latency_ns - 1500, latency_ns - 1350, 400);
  r.trials_summary.means = {latency_ns + 100, latency_ns + 200};
  r.trials_summary.medians = {latency_ns, latency_ns + 150};
  r.trials_summary.mean_of_means = latency_ns + 150;
  r.trials_summary.median_of_means = latency_ns + 150;
  r.trials_summary.stdev_of_means = 70.71;
  r.trials_summary.cv_of_means = 70.71 / (latency_ns + 150);
  trial_result trial;
  trial.iterations = {{latency_ns - 200, latency_ns - 1700},
                      {latency_ns, latency_ns - 1500},
                      {latency_ns + 500, latency_ns - 1000}};
  r.trials = {trial, trial};
  r.kernels = {
      {copy_kernel_name(), activity_kind::kernel, 1, 125400, 125300, 0.7004},
      {gemm_kernel_name(), activity_kind::kernel, 1, 53650, 53500, 0.2996},
  };
  r.wall_seconds = 0.5;
  r.flush_bytes = 251658240;
  r.preparations = 2; // each trial its own preparation, as kerntime run makes them
  r.preparation_spread = 0.0125;

  benchmark_run run = state_run("copy_then_gemm", {{"bytes", bytes}});
  run.result = std::move(r);
  run.bytes = 2.0 * 268435456;
  return run;
}

// Counters of one kernel from CUPTI's default set (+ its duration), and what kerntime derives:
// DRAM bytes over the kernel's median time, against the H200's 4814.3 GB/s.
kernel_counters_result kernel_counters(std::string name, double read, double write, double dram_pct,
                                       double l2_hit, double tensor, double duration_ns,
                                       double median_ns) {
  kernel_counters_result k;
  k.name = std::move(name);
  k.launches = 1;
  k.metrics = {{"dram__bytes_read.sum", read},
               {"dram__bytes_write.sum", write},
               {"dram__throughput.avg.pct_of_peak_sustained_elapsed", dram_pct},
               {"gpu__time_duration.sum", duration_ns},
               {"lts__t_sector_hit_rate.pct", l2_hit},
               {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", tensor}};
  k.derived.dram_bytes = read + write;
  k.derived.dram_bytes_per_second = (read + write) / (median_ns * 1e-9);
  k.derived.dram_fraction_of_peak = *k.derived.dram_bytes_per_second / 4814.304e9;
  k.derived.dram_percent_of_peak = dram_pct;
  k.derived.compute_percent_of_peak = tensor;
  k.derived.bound = dram_pct >= tensor ? roofline_bound::memory : roofline_bound::compute;
  return k;
}

// The copy reads and writes 256 MiB at 89 % of DRAM peak; the GEMM keeps the tensor pipe busy.
benchmark_run measured_counters_run() {
  benchmark_run run = copy_then_gemm_run("268435456", 181250);
  counters_summary& c = run.result->counters;
  c.status = counters_status::measured;
  c.chip = "GH100";
  c.metrics = {"dram__bytes_read.sum",
               "dram__bytes_write.sum",
               "dram__throughput.avg.pct_of_peak_sustained_elapsed",
               "lts__t_sector_hit_rate.pct",
               "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
               "gpu__time_duration.sum"};
  c.passes = 2;
  c.seconds = 0.412;
  c.kernels = {
      kernel_counters(copy_kernel_name(), 268436480, 268435456, 89.02, 49.8, 0.0, 125900, 125300),
      kernel_counters(gemm_kernel_name(), 25165824, 67108864, 12.4, 78.3, 62.5, 53700, 53500)};
  c.metrics_total = {{"dram__bytes_read.sum", 293602304},
                     {"dram__bytes_write.sum", 335544320},
                     {"dram__throughput.avg.pct_of_peak_sustained_elapsed", 66.1},
                     {"gpu__time_duration.sum", 179600},
                     {"lts__t_sector_hit_rate.pct", 58.3},
                     {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", 18.7}};
  c.derived.dram_bytes = 293602304.0 + 335544320.0;
  c.derived.dram_bytes_per_second = *c.derived.dram_bytes / 181250e-9;
  c.derived.dram_fraction_of_peak = *c.derived.dram_bytes_per_second / 4814.304e9;
  c.derived.dram_percent_of_peak = 66.1;
  c.derived.compute_percent_of_peak = 18.7;
  c.derived.bound = roofline_bound::memory;
  return run;
}

// Asked for, refused by the driver: the reason counter_failure_reason gives, verbatim.
benchmark_run unavailable_counters_run() {
  benchmark_run run = copy_then_gemm_run("67108864", 181600);
  counters_summary& c = run.result->counters;
  c.status = counters_status::unavailable;
  c.reason = "insufficient privileges: the NVIDIA driver restricts the GPU performance counters to "
             "administrators (driver setting NVreg_RestrictProfilingToAdminUsers=1; NVIDIA's page "
             "ERR_NVGPUCTRPERM). Run as root or with CAP_SYS_ADMIN, or have an administrator load "
             "the driver with NVreg_RestrictProfilingToAdminUsers=0 (e.g. \"options nvidia "
             "NVreg_RestrictProfilingToAdminUsers=0\" in /etc/modprobe.d, then reload the driver) "
             "(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES from profiler initialise)";
  c.chip = "GH100";
  c.seconds = 0.003;
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

  runs.push_back(measured_counters_run());
  runs.push_back(unavailable_counters_run());
  return runs;
}

} // namespace kerntime::test
