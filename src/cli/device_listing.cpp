#include "cli/device_listing.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <ostream>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/device_check.hpp"
#include "cuda/gpu_code.hpp"
#include "cupti/availability.hpp"
#include "cupti/cupti_library.hpp"
#include "supervise/exit_codes.hpp"
#include "telemetry/telemetry_probe.hpp"

namespace kerntime::detail {
namespace {

int attribute(cudaDeviceAttr which, int device) {
  int value = 0;
  return cudaDeviceGetAttribute(&value, which, device) == cudaSuccess ? value : 0;
}

std::string mebibytes(double bytes) {
  return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024));
}

std::string gibibytes(double bytes) {
  return fmt::format("{:.1f} GiB", bytes / (1024.0 * 1024 * 1024));
}

template <typename T> std::string or_unknown(const std::optional<T>& value, std::string_view unit) {
  return value ? fmt::format("{}{}", *value, unit) : std::string("?");
}

// What NVML says about device `d` now: its static facts and one live reading (no GPU work).
void print_nvml_lines(std::ostream& out, int d) {
  const device_telemetry facts = read_device_telemetry(d);
  if (!facts.available) {
    out << fmt::format("  NVML                 unavailable: {}\n", facts.unavailable_reason);
    return;
  }
  out << fmt::format("  NVML                 {}, driver {}, max SM clock {}, power limit {}\n",
                     facts.uuid, facts.driver_version, or_unknown(facts.max_sm_clock_mhz, " MHz"),
                     or_unknown(facts.power_limit_w, " W"));
  if (const auto now = read_snapshot(d)) {
    out << fmt::format(
        "  now                  SM clock {}, memory clock {}, {}, {}{}\n",
        or_unknown(now->sm_clock_mhz, " MHz"), or_unknown(now->memory_clock_mhz, " MHz"),
        or_unknown(now->temperature_c, " °C"), or_unknown(now->power_w, " W"),
        now->clock_event_names.empty()
            ? std::string()
            : fmt::format(", clock events: {}", fmt::join(now->clock_event_names, ", ")));
  }
}

// Whether libcupti can be loaded at all; without it every run falls back to CUDA events.
std::string cupti_library_line() {
  const auto loaded = load_cupti();
  if (const auto* why = std::get_if<std::string>(&loaded)) {
    return "CUPTI library: not loadable: " + *why + " (timing falls back to CUDA events)";
  }
  const auto* library = std::get<const cupti_library*>(loaded);
  std::uint32_t version = 0;
  if (library->get_version != nullptr && library->get_version(&version) == CUPTI_SUCCESS) {
    return fmt::format("CUPTI library: loaded (API version {})", version);
  }
  return "CUPTI library: loaded";
}

} // namespace

std::string cuda_version_text(int version) {
  return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}

int print_device_listing(std::ostream& out, std::ostream& err) {
  int driver = 0;
  int runtime = 0;
  (void)cudaDriverGetVersion(&driver);
  (void)cudaRuntimeGetVersion(&runtime);
  out << fmt::format("CUDA driver {}, runtime {}\n",
                     driver > 0 ? cuda_version_text(driver) : "not installed",
                     cuda_version_text(runtime));
  out << cupti_library_line() << '\n';
  if (auto problem = find_cuda_device_problem()) {
    err << "kerntime: " << *problem << '\n';
    return exit_no_device;
  }
  // Loading is not enough: another profiler, permissions or the device can still refuse.
  if (const auto why_not = probe_cupti()) {
    out << "CUPTI attach: not usable here: " << *why_not
        << " (timing falls back to CUDA events; --backend cupti fails)\n";
  } else {
    out << "CUPTI attach: usable (timing uses CUPTI activity records)\n";
  }

  int count = 0;
  (void)cudaGetDeviceCount(&count);
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp p{};
    if (const auto status = cudaGetDeviceProperties(&p, d); status != cudaSuccess) {
      out << fmt::format("\ndevice {}: cannot be read: {}\n", d, cudaGetErrorString(status));
      continue;
    }
    out << fmt::format("\ndevice {}: {}\n", d, p.name);
    out << fmt::format("  compute capability   {}.{}\n", p.major, p.minor);
    out << fmt::format("  multiprocessors      {}\n", p.multiProcessorCount);
    out << fmt::format("  L2 cache             {}\n", mebibytes(p.l2CacheSize));
    out << fmt::format("  memory               {}\n", gibibytes(double(p.totalGlobalMem)));
    out << fmt::format("  memory bus           {} bits\n", p.memoryBusWidth);
    out << fmt::format("  SM clock (peak)      {} MHz\n",
                       attribute(cudaDevAttrClockRate, d) / 1000);
    out << fmt::format("  memory clock (peak)  {} MHz\n",
                       attribute(cudaDevAttrMemoryClockRate, d) / 1000);
    out << fmt::format("  PCI bus              {:04x}:{:02x}:{:02x}\n", p.pciDomainID, p.pciBusID,
                       p.pciDeviceID);
    out << fmt::format("  kerntime's code      {}\n",
                       describe_gpu_code({p.major, p.minor, p.name}, this_build_gpu_code()));
    print_nvml_lines(out, d);
  }
  return exit_ok;
}

} // namespace kerntime::detail
