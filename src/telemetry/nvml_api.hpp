#pragma once
// The few NVML entry points kerntime reads, as a table of function pointers. nvml.h ships with the
// driver, not with the CUDA toolkit, so the types and values used are declared here from NVIDIA's
// public NVML reference, and the library is loaded at run time: a binary must start where NVML is
// missing. Only getters are declared: kerntime never changes clocks, power limits or persistence.

#include <optional>
#include <string>

namespace kerntime::detail {

// nvmlReturn_t: a C enum, passed as int.
using nvml_return = int;
inline constexpr nvml_return nvml_success = 0;
inline constexpr nvml_return nvml_error_not_supported = 3;
inline constexpr nvml_return nvml_error_gpu_is_lost = 15;

// nvmlDevice_t: an opaque handle owned by NVML.
struct nvml_device_handle;
using nvml_device = nvml_device_handle*;

// nvmlClockType_t values.
inline constexpr int nvml_clock_sm = 1;
inline constexpr int nvml_clock_memory = 2;
// nvmlTemperatureSensors_t value for the GPU die.
inline constexpr int nvml_temperature_gpu = 0;

// Any entry may be null (an older driver lacks it, or a test leaves it out): the value it reads
// is then left empty. Only `device_get_handle_by_pci_bus_id` is required.
struct nvml_api {
  const char* (*error_string)(nvml_return result) = nullptr;
  nvml_return (*system_get_driver_version)(char* version, unsigned length) = nullptr;
  nvml_return (*device_get_handle_by_pci_bus_id)(const char* pci_bus_id,
                                                 nvml_device* device) = nullptr;
  nvml_return (*device_get_name)(nvml_device device, char* name, unsigned length) = nullptr;
  nvml_return (*device_get_uuid)(nvml_device device, char* uuid, unsigned length) = nullptr;
  nvml_return (*device_get_clock_info)(nvml_device device, int clock_type, unsigned* mhz) = nullptr;
  nvml_return (*device_get_max_clock_info)(nvml_device device, int clock_type,
                                           unsigned* mhz) = nullptr;
  nvml_return (*device_get_applications_clock)(nvml_device device, int clock_type,
                                               unsigned* mhz) = nullptr;
  nvml_return (*device_get_enforced_power_limit)(nvml_device device,
                                                 unsigned* milliwatts) = nullptr;
  nvml_return (*device_get_power_usage)(nvml_device device, unsigned* milliwatts) = nullptr;
  nvml_return (*device_get_temperature)(nvml_device device, int sensor,
                                        unsigned* celsius) = nullptr;
  nvml_return (*device_get_clock_event_reasons)(nvml_device device,
                                                unsigned long long* reasons) = nullptr;
  // nvmlDeviceGetTotalEnergyConsumption: millijoules since the driver was loaded (Volta and
  // later; NVML_ERROR_NOT_SUPPORTED before).
  nvml_return (*device_get_total_energy_consumption)(nvml_device device,
                                                     unsigned long long* millijoules) = nullptr;
};

// "libnvidia-ml.so.1", or the path in the environment variable KERNTIME_NVML_PATH.
[[nodiscard]] std::string nvml_library_path();

// Opens the library at `path`, resolves the entry points and initialises NVML. The library is
// never unloaded. On failure: nullopt, and `reason` says why.
[[nodiscard]] std::optional<nvml_api> load_nvml(const std::string& path, std::string& reason);

// The process-wide NVML from nvml_library_path(), loaded once per path and kept for the life of
// the process. nullptr, with `reason` set, when it cannot be loaded.
[[nodiscard]] const nvml_api* system_nvml(std::string& reason);

// "GPU is lost (NVML error 15)", using the table's error_string when it has one.
[[nodiscard]] std::string describe_nvml_error(const nvml_api& api, nvml_return result);

} // namespace kerntime::detail
