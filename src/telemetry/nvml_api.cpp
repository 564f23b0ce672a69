#include "telemetry/nvml_api.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>

#include <fmt/format.h>

namespace kerntime::detail {
namespace {

template <class Function> void resolve(void* library, const char* symbol, Function& out) {
  out = reinterpret_cast<Function>(dlsym(library, symbol));
}

// nvmlTemperature_v1_t and its version tag, for drivers that export only the V variant.
struct nvml_temperature_v1 {
  unsigned version;
  int sensor_type;
  int temperature;
};
constexpr unsigned nvml_temperature_v1_version = sizeof(nvml_temperature_v1) | (1U << 24U);

using temperature_v_function = nvml_return (*)(nvml_device, nvml_temperature_v1*);
temperature_v_function temperature_v = nullptr; // set once under load_mutex

nvml_return temperature_through_v(nvml_device device, int sensor, unsigned* celsius) {
  nvml_temperature_v1 reading{nvml_temperature_v1_version, sensor, 0};
  nvml_return result = temperature_v(device, &reading);
  if (result == nvml_success) {
    *celsius = reading.temperature < 0 ? 0U : static_cast<unsigned>(reading.temperature);
  }
  return result;
}

std::mutex load_mutex;

} // namespace

std::string nvml_library_path() {
  const char* overridden = std::getenv("KERNTIME_NVML_PATH");
  if (overridden != nullptr && *overridden != '\0') {
    return overridden;
  }
  return "libnvidia-ml.so.1";
}

std::optional<nvml_api> load_nvml(const std::string& path, std::string& reason) {
  std::lock_guard lock(load_mutex);
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    reason = fmt::format("cannot load {}: {}", path, why != nullptr ? why : "unknown dlopen error");
    return std::nullopt;
  }
  nvml_return (*init)() = nullptr;
  resolve(library, "nvmlInit_v2", init);
  if (init == nullptr) {
    resolve(library, "nvmlInit", init);
  }
  nvml_api api;
  resolve(library, "nvmlErrorString", api.error_string);
  resolve(library, "nvmlSystemGetDriverVersion", api.system_get_driver_version);
  resolve(library, "nvmlDeviceGetHandleByPciBusId_v2", api.device_get_handle_by_pci_bus_id);
  if (api.device_get_handle_by_pci_bus_id == nullptr) {
    resolve(library, "nvmlDeviceGetHandleByPciBusId", api.device_get_handle_by_pci_bus_id);
  }
  resolve(library, "nvmlDeviceGetTotalEnergyConsumption", api.device_get_total_energy_consumption);
  resolve(library, "nvmlDeviceGetName", api.device_get_name);
  resolve(library, "nvmlDeviceGetUUID", api.device_get_uuid);
  resolve(library, "nvmlDeviceGetClockInfo", api.device_get_clock_info);
  resolve(library, "nvmlDeviceGetMaxClockInfo", api.device_get_max_clock_info);
  resolve(library, "nvmlDeviceGetApplicationsClock", api.device_get_applications_clock);
  resolve(library, "nvmlDeviceGetEnforcedPowerLimit", api.device_get_enforced_power_limit);
  resolve(library, "nvmlDeviceGetPowerUsage", api.device_get_power_usage);
  resolve(library, "nvmlDeviceGetTemperature", api.device_get_temperature);
  if (api.device_get_temperature == nullptr) {
    resolve(library, "nvmlDeviceGetTemperatureV", temperature_v);
    if (temperature_v != nullptr) {
      api.device_get_temperature = &temperature_through_v;
    }
  }
  // Renamed from "throttle" to "clock event" reasons in CUDA 12.2's NVML; same bits.
  resolve(library, "nvmlDeviceGetCurrentClocksEventReasons", api.device_get_clock_event_reasons);
  if (api.device_get_clock_event_reasons == nullptr) {
    resolve(library, "nvmlDeviceGetCurrentClocksThrottleReasons",
            api.device_get_clock_event_reasons);
  }
  if (init == nullptr || api.device_get_handle_by_pci_bus_id == nullptr) {
    reason = fmt::format("{} lacks nvmlInit or nvmlDeviceGetHandleByPciBusId", path);
    return std::nullopt;
  }
  if (nvml_return result = init(); result != nvml_success) {
    reason = fmt::format("nvmlInit failed: {}", describe_nvml_error(api, result));
    return std::nullopt;
  }
  return api;
}

const nvml_api* system_nvml(std::string& reason) {
  // std::map keeps its nodes in place, so the returned pointer stays valid for the process.
  static std::map<std::string, nvml_api> loaded;
  static std::mutex loaded_mutex;
  const std::string path = nvml_library_path();
  std::lock_guard lock(loaded_mutex);
  if (auto found = loaded.find(path); found != loaded.end()) {
    return &found->second;
  }
  std::optional<nvml_api> api = load_nvml(path, reason);
  if (!api) {
    return nullptr; // not cached: a later call may find the driver installed
  }
  return &loaded.emplace(path, *api).first->second;
}

std::string describe_nvml_error(const nvml_api& api, nvml_return result) {
  const char* text = api.error_string != nullptr ? api.error_string(result) : nullptr;
  if (text == nullptr) {
    return fmt::format("NVML error {}", result);
  }
  return fmt::format("{} (NVML error {})", text, result);
}

} // namespace kerntime::detail
