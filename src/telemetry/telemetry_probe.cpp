#include "telemetry/telemetry_probe.hpp"

#include <algorithm>
#include <array>
#include <future>
#include <map>
#include <mutex>
#include <utility>
#include <variant>

#include <fmt/format.h>

namespace kerntime::detail {
namespace {

// True when CUDA sees `cuda_device`. Without a GPU the failed query is cleared: no benchmark can
// have left an error on a machine with no device.
bool cuda_device_present(int cuda_device, std::string& reason) {
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    (void)cudaGetLastError();
    reason = fmt::format("no CUDA device ({})", cudaGetErrorName(e));
    return false;
  }
  if (cuda_device < 0 || cuda_device >= count) {
    reason = fmt::format("CUDA device {} does not exist ({} visible)", cuda_device, count);
    return false;
  }
  return true;
}

// CUDA's peak SM clock, the reference when NVML cannot give the maximum.
std::optional<double> cuda_peak_sm_clock_mhz(int cuda_device) {
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, cuda_device) != cudaSuccess || khz <= 0) {
    return std::nullopt;
  }
  return khz / 1000.0;
}

// Locked clocks stay at their setting: a reading away from the application clock disproves them.
bool strays_from(const std::optional<gpu_snapshot>& snapshot, std::optional<unsigned> application) {
  return snapshot && snapshot->sm_clock_mhz && application &&
         *snapshot->sm_clock_mhz != *application;
}

// What NVML says of a device that does not change while the process runs: its handle, name,
// UUID, driver, maximum and application clocks and power limit. Looking them up took ~4 ms of
// every measurement on the H200 (bench_fixed_cost_parts), so the system probe reads them once.
struct known_device {
  nvml_device handle = nullptr;
  device_telemetry facts;
  std::vector<std::string> failures; // notes of entry points that failed (then not remembered)
};

class known_devices {
public:
  // The device with `pci_bus_id`, looked up and read on first use; NVML's error when it has none
  // (not remembered: a later probe asks again).
  std::variant<known_device, nvml_return> find(const nvml_api& nvml, const std::string& pci_bus_id,
                                               bool remember) {
    const std::lock_guard lock(mutex_);
    const auto key = std::make_pair(&nvml, pci_bus_id);
    if (remember) {
      if (const auto it = known_.find(key); it != known_.end()) {
        return it->second;
      }
    }
    known_device device;
    if (const nvml_return found =
            nvml.device_get_handle_by_pci_bus_id(pci_bus_id.c_str(), &device.handle);
        found != nvml_success) {
      return found;
    }
    nvml_reader reader(nvml, device.handle);
    reader.read_device(device.facts);
    device.failures = reader.take_new_failures();
    if (remember && device.failures.empty()) {
      known_[key] = device;
    }
    return device;
  }

private:
  std::mutex mutex_;
  std::map<std::pair<const nvml_api*, std::string>, known_device> known_;
};

known_devices& process_devices() {
  static auto* const devices = new known_devices; // NOLINT(cppcoreguidelines-owning-memory)
  return *devices;
}

} // namespace

std::unique_ptr<telemetry_probe> telemetry_probe::open(int cuda_device, const protocol& p) {
  probe_setup setup;
  setup.cuda_device = cuda_device;
  setup.remember_device = true;
  setup.energy_in_background = true;
  if (p.telemetry) {
    setup.nvml = system_nvml(setup.nvml_unavailable_reason);
  }
  return open(setup, p);
}

std::unique_ptr<telemetry_probe> telemetry_probe::open(const probe_setup& setup,
                                                       const protocol& p) {
  std::unique_ptr<telemetry_probe> probe(new telemetry_probe);
  probe->throttle_threshold_ = p.throttle_threshold;
  device_telemetry& device = probe->device_;
  if (!p.telemetry) {
    device.unavailable_reason = "telemetry is off in the protocol";
    return probe;
  }
  std::string no_gpu_reason;
  const bool gpu = cuda_device_present(setup.cuda_device, no_gpu_reason);

  std::string pci_bus_id = setup.pci_bus_id;
  if (setup.nvml == nullptr) {
    device.unavailable_reason = setup.nvml_unavailable_reason.empty()
                                    ? "NVML is not available"
                                    : setup.nvml_unavailable_reason;
  } else if (pci_bus_id.empty() && !gpu) {
    device.unavailable_reason = fmt::format("cannot match CUDA device {} to an NVML device: {}",
                                            setup.cuda_device, no_gpu_reason);
  } else {
    if (pci_bus_id.empty()) {
      // Matched by PCI bus id, not by index: CUDA_VISIBLE_DEVICES renumbers CUDA's devices only.
      std::array<char, 64> text{};
      if (cudaError_t e =
              cudaDeviceGetPCIBusId(text.data(), static_cast<int>(text.size()), setup.cuda_device);
          e == cudaSuccess) {
        pci_bus_id = text.data();
      } else {
        device.unavailable_reason = fmt::format("cannot read the PCI bus id of CUDA device {}: {}",
                                                setup.cuda_device, cudaGetErrorName(e));
      }
    }
    if (!pci_bus_id.empty()) {
      const auto found = process_devices().find(*setup.nvml, pci_bus_id, setup.remember_device);
      if (const auto* known = std::get_if<known_device>(&found)) {
        device = known->facts;
        device.available = true;
        device.pci_bus_id = pci_bus_id;
        probe->reader_.emplace(*setup.nvml, known->handle);
        for (const std::string& note : known->failures) {
          probe->warn_once(note);
        }
        const std::optional<gpu_snapshot> now = probe->read_now();
        device.clocks_locked =
            clocks_look_locked(now->sm_clock_mhz, device.application_sm_clock_mhz,
                               now->memory_clock_mhz, device.application_memory_clock_mhz);
      } else {
        device.unavailable_reason =
            fmt::format("NVML has no device with PCI bus id {}: {}", pci_bus_id,
                        describe_nvml_error(*setup.nvml, std::get<nvml_return>(found)));
      }
    }
  }

  if (device.max_sm_clock_mhz) {
    probe->max_sm_clock_mhz_ = *device.max_sm_clock_mhz;
  } else if (gpu) {
    probe->max_sm_clock_mhz_ = cuda_peak_sm_clock_mhz(setup.cuda_device);
  }
  if (!probe->max_sm_clock_mhz_) {
    probe->warnings_.emplace_back("telemetry: no maximum SM clock is known, so no trial is judged "
                                  "for throttling");
  }

  probe->measured_sm_clock_stand_in_ = setup.measured_sm_clock;
  probe->energy_min_window_ = setup.energy_min_window;
  probe->energy_in_background_ = setup.energy_in_background;
  if (setup.clock_check) {
    std::string reason = no_gpu_reason;
    if (gpu) {
      probe->clock_check_ = clock_check::create(reason);
    }
    if (!probe->clock_check_) {
      probe->warnings_.push_back(fmt::format("telemetry: on-GPU clock check unavailable: {}; no "
                                             "trial is judged for throttling",
                                             reason));
    }
  }
  probe->collect_nvml_failures();
  return probe;
}

telemetry_probe::~telemetry_probe() = default;

void telemetry_probe::before_trial(cudaStream_t /*stream*/) {
  // The GPU side of the probe runs after the trial (see after_trial); before it, the GPU may
  // still be between trials, and a check there would read an idle clock.
  before_ = read_now();
  // The energy counter last, so the window holds the trials and little else. It is read on a
  // thread of its own, with a reader of its own (NVML is thread-safe, the reader's notes are not).
  if (reader_ && !open_window_) {
    open_window_.emplace();
    open_window_->min_seconds = energy_min_window_.count();
    energy_at_start_ =
        std::async(energy_in_background_ ? std::launch::async : std::launch::deferred,
                   [reader = *reader_]() mutable {
                     energy_reading reading;
                     reading.mj = reader.read_energy_mj();
                     reading.failures = reader.take_new_failures();
                     return reading;
                   });
    if (!energy_in_background_) {
      energy_at_start_.wait(); // read here, in order with the trial's other readings
    }
    energy_window_start_ = std::chrono::steady_clock::now();
  }
}

void telemetry_probe::close_energy_window(std::size_t iterations) {
  if (!open_window_) {
    return;
  }
  energy_window window = *std::exchange(open_window_, std::nullopt);
  energy_reading at_start = energy_at_start_.get();
  window.mj_before = at_start.mj;
  for (const std::string& note : at_start.failures) {
    warn_once(note);
  }
  window.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - energy_window_start_)
          .count();
  window.iterations = iterations;
  if (window.mj_before && window.seconds >= window.min_seconds) {
    window.mj_after = reader_->read_energy_mj();
    collect_nvml_failures();
  }
  energy_ = window;
}

trial_telemetry telemetry_probe::after_trial(cudaStream_t stream) {
  trial_telemetry trial;
  const bool enqueued = clock_check_ && clock_check_->enqueue(stream);
  const bool synchronized = cudaStreamSynchronize(stream) == cudaSuccess;
  if (enqueued && synchronized) {
    trial.measured_sm_clock_mhz = clock_check_->read_mhz();
  } else if (measured_sm_clock_stand_in_) {
    trial.measured_sm_clock_mhz = measured_sm_clock_stand_in_();
  }
  trial.before = std::exchange(before_, std::nullopt);
  trial.after = read_now();

  // NVML's clock-event reasons stay in the snapshots as information: the clock decides.
  const throttle_decision decision =
      decide_throttled(trial.measured_sm_clock_mhz, max_sm_clock_mhz_, throttle_threshold_);
  trial.sm_clock_fraction = decision.sm_clock_fraction;
  trial.throttled = decision.throttled;
  trial.throttle_reason = decision.reason;

  if (device_.clocks_locked.value_or(false) &&
      (strays_from(trial.before, device_.application_sm_clock_mhz) ||
       strays_from(trial.after, device_.application_sm_clock_mhz))) {
    device_.clocks_locked = false;
  }
  return trial;
}

std::optional<gpu_snapshot> telemetry_probe::read_now() {
  if (!reader_) {
    return std::nullopt;
  }
  gpu_snapshot snapshot = reader_->read_snapshot();
  collect_nvml_failures();
  return snapshot;
}

void telemetry_probe::collect_nvml_failures() {
  if (!reader_) {
    return;
  }
  for (const std::string& note : reader_->take_new_failures()) {
    warn_once(note);
  }
}

void telemetry_probe::warn_once(const std::string& nvml_note) {
  // The energy counter's start is read by a reader of its own (before_trial), which the probe's
  // reader does not hear of: the same failure may be noted by both.
  std::string warning = "telemetry: " + nvml_note;
  if (std::find(warnings_.begin(), warnings_.end(), warning) == warnings_.end()) {
    warnings_.push_back(std::move(warning));
  }
}

namespace {

std::unique_ptr<telemetry_probe> open_for_info(int cuda_device) {
  probe_setup setup;
  setup.cuda_device = cuda_device;
  setup.nvml = system_nvml(setup.nvml_unavailable_reason);
  setup.clock_check = false; // `kerntime info` reads the card; it launches nothing
  return telemetry_probe::open(setup, protocol{});
}

} // namespace

device_telemetry read_device_telemetry(int cuda_device) {
  return open_for_info(cuda_device)->device();
}

std::optional<gpu_snapshot> read_snapshot(int cuda_device) {
  return open_for_info(cuda_device)->read_now();
}

} // namespace kerntime::detail
