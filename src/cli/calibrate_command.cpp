#include "cli/calibrate_command.hpp"

#include <chrono>
#include <cmath>
#include <ostream>

#include <fmt/format.h>

#include "cli/calibration_gemm.hpp"
#include "cli/output_paths.hpp"
#include "cli/run_context.hpp"
#include "kerntime/cuda.hpp"
#include "kerntime/measure.hpp"
#include "kerntime/report.hpp"
#include "result/summarise.hpp"
#include "roofline/calibration_file.hpp"
#include "roofline/peak_table.hpp"
#include "supervise/exit_codes.hpp"

namespace kerntime::detail {
namespace {

calibration_gemm_factory& factory_slot() {
  static calibration_gemm_factory factory = nullptr;
  return factory;
}

// Short: a calibration is a few large operations, and their spread is small. The flush stays
// on, so the copy reads DRAM, not L2.
protocol calibration_protocol() {
  return protocol{.warmup = 3, .trials = 3, .repeats = 10, .input_sets = 1};
}

} // namespace

void set_calibration_gemm_factory(calibration_gemm_factory factory) {
  factory_slot() = factory;
}

calibration_gemm_factory get_calibration_gemm_factory() {
  return factory_slot();
}

CLI::App* add_calibrate_command(CLI::App& app, calibrate_flags& flags) {
  CLI::App& calibrate = *app.add_subcommand(
      "calibrate", "Measure what this GPU achieves now (copy, a GEMM per precision) for run "
                   "--calibration");
  calibrate.add_option("-o,--output", flags.output, "Write the calibration JSON to this file")
      ->capture_default_str();
  calibrate.add_option("--gemm-size", flags.gemm_size, "M = N = K of the GEMMs (256..32768)")
      ->capture_default_str();
  calibrate
      .add_option("--copy-mib", flags.copy_mib, "MiB the device-to-device copy moves (16..16384)")
      ->capture_default_str();
  return &calibrate;
}

int run_calibrate(const calibrate_flags& flags, const std::vector<std::string>& args,
                  const cli_environment& env) {
  auto& out = *env.out;
  auto& err = *env.err;
  if (flags.gemm_size < 256 || flags.gemm_size > 32768) {
    throw invalid_argument(fmt::format("--gemm-size {}: give a size within 256..32768, e.g. "
                                       "--gemm-size 8192",
                                       flags.gemm_size));
  }
  if (flags.copy_mib < 16 || flags.copy_mib > 16384) {
    throw invalid_argument(fmt::format("--copy-mib {}: give MiB within 16..16384, e.g. "
                                       "--copy-mib 1024",
                                       flags.copy_mib));
  }
  check_output_paths({{"--output", flags.output}});
  if (auto problem = env.find_device_problem()) {
    err << "kerntime: " << *problem << '\n';
    return exit_no_device;
  }
  if (auto problem = env.create_context()) {
    err << "kerntime: " << *problem << '\n';
    return exit_no_device;
  }
  const auto start = std::chrono::steady_clock::now();
  const run_context context = make_run_context(args, {});
  const protocol p = calibration_protocol();

  calibration c;
  std::string no_peaks; // why the peak table has nothing for this GPU, said after the figures
  c.kerntime_version = context.kerntime_version;
  c.date = context.date;
  c.copy_bytes = static_cast<std::size_t>(flags.copy_mib) << 20;
  {
    device_buffer<std::byte> from(c.copy_bytes);
    device_buffer<std::byte> to(c.copy_bytes);
    check_cuda(cudaMemset(from.data(), 1, c.copy_bytes), "filling the copy's source");
    const measurement_result r = measure(
        [&](cudaStream_t stream, int) {
          check_cuda(cudaMemcpyAsync(to.data(), from.data(), c.copy_bytes, cudaMemcpyDeviceToDevice,
                                     stream),
                     "cudaMemcpyAsync");
        },
        p);
    c.copy_bytes_per_s = 2.0 * static_cast<double>(c.copy_bytes) / (r.latency_ns * 1e-9);
    c.device_name = r.device.name;
    c.device_uuid = r.telemetry.uuid;
    c.compute_capability_major = r.device.compute_capability_major;
    c.compute_capability_minor = r.device.compute_capability_minor;
    c.multiprocessors = r.device.multiprocessors;
    no_peaks = no_table_peaks_reason(peak_inputs_of(r));
  }

  c.gemm_size = flags.gemm_size;
  const double flops = 2.0 * std::pow(static_cast<double>(flags.gemm_size), 3);
  double clock_sum = 0;
  int clock_count = 0;
  const auto factory = get_calibration_gemm_factory();
  if (factory == nullptr) {
    c.not_measured[flop_precision::bf16_tensor] =
        "this program has no GEMMs to calibrate with (link kerntime::kerntime_cublas_gemms, as "
        "the kerntime command does)";
  } else {
    for (auto& gemm : factory()) {
      const flop_precision precision = gemm->precision();
      const int major = c.compute_capability_major;
      const int minor = c.compute_capability_minor;
      const bool in_table = flops_per_clock_per_sm(major, minor, flop_precision::fp32).has_value();
      if (in_table && !flops_per_clock_per_sm(major, minor, precision)) {
        c.not_measured[precision] = fmt::format("sm_{}{} has no such unit", major, minor);
        continue;
      }
      try {
        gemm->prepare(flags.gemm_size);
        const measurement_result r =
            measure([&](cudaStream_t stream, int) { gemm->run(stream); }, p);
        c.gemm_flops_per_s[precision] = flops / (r.latency_ns * 1e-9);
        if (auto clock = mean_measured_sm_clock(r.trials)) {
          clock_sum += *clock;
          ++clock_count;
        }
      } catch (const std::exception& e) { // gemm_unavailable, or a CUDA error of cuBLAS's

        c.not_measured[precision] = e.what();
        (void)cudaGetLastError();
      }
      gemm.reset(); // frees its operands before the next one allocates
    }
  }
  if (clock_count > 0) {
    c.sm_clock_mhz = clock_sum / clock_count;
  }
  c.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  write_file_atomically(flags.output, [&](std::ostream& file) { file << calibration_to_json(c); });

  out << fmt::format("Calibration of {} ({} SMs, sm_{}{}) in {:.1f} s", c.device_name,
                     c.multiprocessors, c.compute_capability_major, c.compute_capability_minor,
                     c.wall_seconds);
  if (c.sm_clock_mhz) {
    out << fmt::format(", on-GPU SM clock {:.0f} MHz during the GEMMs", *c.sm_clock_mhz);
  }
  out << "\n\n| work | achieved |\n| :-- | --: |\n";
  out << fmt::format("| copy {} MiB | {:.1f} GB/s |\n", flags.copy_mib, *c.copy_bytes_per_s / 1e9);
  for (const auto& [precision, rate] : c.gemm_flops_per_s) {
    out << fmt::format("| GEMM {} {} | {:.1f} TFLOP/s |\n", to_string(precision), c.gemm_size,
                       rate / 1e12);
  }
  for (const auto& [precision, why] : c.not_measured) {
    out << fmt::format("| GEMM {} | not measured: {} |\n", to_string(precision), why);
  }
  if (!no_peaks.empty()) {
    out << "\nNo theoretical peaks: " << no_peaks
        << "; `kerntime run --calibration` still gives each state's share of these figures.\n";
  }
  out << "\nWritten to " << flags.output << '\n';
  return exit_ok;
}

} // namespace kerntime::detail
