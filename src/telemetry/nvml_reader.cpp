#include "telemetry/nvml_reader.hpp"

#include <array>

#include <fmt/format.h>

#include "telemetry/clock_event_reasons.hpp"

namespace kerntime::detail {

template <class Function, class... Arguments>
bool nvml_reader::call(const char* name, Function function, Arguments... arguments) {
  if (function == nullptr) {
    return false;
  }
  const nvml_return result = function(arguments...);
  if (result == nvml_success) {
    return true;
  }
  if (result != nvml_error_not_supported && failed_.insert(name).second) {
    new_failures_.push_back(fmt::format("NVML {} failed: {}; its readings are left empty", name,
                                        describe_nvml_error(*api_, result)));
  }
  return false;
}

namespace {

template <class Value> std::optional<Value> if_read(bool ok, Value value) {
  return ok ? std::optional<Value>(value) : std::nullopt;
}

} // namespace

void nvml_reader::read_device(device_telemetry& out) {
  // Buffer sizes: NVML documents 96 for names, UUIDs and driver versions.
  std::array<char, 96> text{};
  if (call("nvmlDeviceGetName", api_->device_get_name, device_, text.data(),
           static_cast<unsigned>(text.size()))) {
    out.name = text.data();
  }
  text.fill('\0');
  if (call("nvmlDeviceGetUUID", api_->device_get_uuid, device_, text.data(),
           static_cast<unsigned>(text.size()))) {
    out.uuid = text.data();
  }
  text.fill('\0');
  if (call("nvmlSystemGetDriverVersion", api_->system_get_driver_version, text.data(),
           static_cast<unsigned>(text.size()))) {
    out.driver_version = text.data();
  }
  // Each clock NVML reports for the SM and for memory: the maximum and the application clock.
  const auto read_clock = [this](const char* name, auto function, int clock_type) {
    unsigned mhz = 0;
    const bool ok = call(name, function, device_, clock_type, &mhz); // before mhz is read
    return if_read(ok, mhz);
  };
  const auto max_clock = api_->device_get_max_clock_info;
  const auto application_clock = api_->device_get_applications_clock;
  out.max_sm_clock_mhz = read_clock("nvmlDeviceGetMaxClockInfo", max_clock, nvml_clock_sm);
  out.max_memory_clock_mhz = read_clock("nvmlDeviceGetMaxClockInfo", max_clock, nvml_clock_memory);
  out.application_sm_clock_mhz =
      read_clock("nvmlDeviceGetApplicationsClock", application_clock, nvml_clock_sm);
  out.application_memory_clock_mhz =
      read_clock("nvmlDeviceGetApplicationsClock", application_clock, nvml_clock_memory);
  unsigned milliwatts = 0;
  const bool ok = call("nvmlDeviceGetEnforcedPowerLimit", api_->device_get_enforced_power_limit,
                       device_, &milliwatts);
  out.power_limit_w = if_read(ok, milliwatts / 1000.0);
}

gpu_snapshot nvml_reader::read_snapshot() {
  gpu_snapshot snapshot;
  unsigned value = 0;
  bool ok =
      call("nvmlDeviceGetClockInfo", api_->device_get_clock_info, device_, nvml_clock_sm, &value);
  snapshot.sm_clock_mhz = if_read(ok, value);
  ok = call("nvmlDeviceGetClockInfo", api_->device_get_clock_info, device_, nvml_clock_memory,
            &value);
  snapshot.memory_clock_mhz = if_read(ok, value);
  ok = call("nvmlDeviceGetPowerUsage", api_->device_get_power_usage, device_, &value);
  snapshot.power_w = if_read(ok, value / 1000.0);
  ok = call("nvmlDeviceGetTemperature", api_->device_get_temperature, device_, nvml_temperature_gpu,
            &value);
  snapshot.temperature_c = if_read(ok, value);
  unsigned long long reasons = 0;
  if (call("nvmlDeviceGetCurrentClocksEventReasons", api_->device_get_clock_event_reasons, device_,
           &reasons)) {
    snapshot.clock_event_reasons = reasons;
    snapshot.clock_event_names = decode_clock_event_reasons(reasons);
  }
  return snapshot;
}

std::vector<std::string> nvml_reader::take_new_failures() {
  std::vector<std::string> taken;
  taken.swap(new_failures_);
  return taken;
}

std::optional<std::uint64_t> nvml_reader::read_energy_mj() {
  unsigned long long millijoules = 0;
  const bool ok = call("nvmlDeviceGetTotalEnergyConsumption",
                       api_->device_get_total_energy_consumption, device_, &millijoules);
  return if_read<std::uint64_t>(ok, millijoules);
}

} // namespace kerntime::detail
