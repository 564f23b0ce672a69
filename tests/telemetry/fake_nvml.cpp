#include "fake_nvml.hpp"

#include <cstring>

namespace kerntime::detail::testing {
namespace {

fake_nvml_state state;

// Counts the call; false once the fake has been told to start failing.
bool answers() {
  ++state.calls;
  return !state.calls_before_failure || state.calls <= *state.calls_before_failure;
}

nvml_return copy_text(const char* text, char* out, unsigned length) {
  if (!answers()) {
    return nvml_error_gpu_is_lost;
  }
  if (std::strlen(text) + 1 > length) {
    return 7; // NVML_ERROR_INSUFFICIENT_SIZE
  }
  std::strcpy(out, text);
  return nvml_success;
}

nvml_return give(unsigned value, unsigned* out) {
  if (!answers()) {
    return nvml_error_gpu_is_lost;
  }
  *out = value;
  return nvml_success;
}

nvml_device the_device() {
  return reinterpret_cast<nvml_device>(&state);
}

} // namespace

fake_nvml_state& fake_nvml() {
  return state;
}
void reset_fake_nvml() {
  state = fake_nvml_state{};
}

nvml_api fake_nvml_api() {
  nvml_api api;
  api.error_string = [](nvml_return result) -> const char* {
    return result == nvml_error_gpu_is_lost ? "GPU is lost" : "Unknown Error";
  };
  api.system_get_driver_version = [](char* out, unsigned length) {
    return copy_text("580.82.07", out, length);
  };
  api.device_get_handle_by_pci_bus_id = [](const char* pci_bus_id, nvml_device* device) {
    ++state.calls;
    state.looked_up_pci_bus_id = pci_bus_id;
    if (state.handle_result == nvml_success) {
      *device = the_device();
    }
    return state.handle_result;
  };
  api.device_get_name = [](nvml_device, char* out, unsigned length) {
    return copy_text("NVIDIA H200", out, length);
  };
  api.device_get_uuid = [](nvml_device, char* out, unsigned length) {
    return copy_text("GPU-5f1c2b1e-8d7a-4c1e-9f00-0123456789ab", out, length);
  };
  api.device_get_clock_info = [](nvml_device, int type, unsigned* mhz) {
    return give(type == nvml_clock_sm ? state.sm_clock_mhz : state.memory_clock_mhz, mhz);
  };
  api.device_get_max_clock_info = [](nvml_device, int type, unsigned* mhz) {
    return give(type == nvml_clock_sm ? state.max_sm_mhz : state.max_memory_mhz, mhz);
  };
  api.device_get_applications_clock = [](nvml_device, int type, unsigned* mhz) {
    return give(type == nvml_clock_sm ? state.application_sm_mhz : state.application_memory_mhz,
                mhz);
  };
  api.device_get_enforced_power_limit = [](nvml_device, unsigned* mw) {
    return give(state.power_limit_mw, mw);
  };
  api.device_get_power_usage = [](nvml_device, unsigned* mw) {
    if (state.power_result != nvml_success) {
      ++state.calls;
      return state.power_result;
    }
    return give(state.power_mw, mw);
  };
  api.device_get_temperature = [](nvml_device, int, unsigned* celsius) {
    return give(state.temperature_c, celsius);
  };
  api.device_get_clock_event_reasons = [](nvml_device, unsigned long long* reasons) {
    if (!answers()) {
      return nvml_error_gpu_is_lost;
    }
    *reasons = state.clock_event_reasons;
    return nvml_success;
  };
  api.device_get_total_energy_consumption = [](nvml_device, unsigned long long* millijoules) {
    if (state.energy_result != nvml_success) {
      ++state.calls;
      return state.energy_result;
    }
    if (!answers()) {
      return nvml_error_gpu_is_lost;
    }
    *millijoules = state.energy_mj;
    state.energy_mj += state.energy_step_mj;
    return nvml_success;
  };
  return api;
}

} // namespace kerntime::detail::testing
