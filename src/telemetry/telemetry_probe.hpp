#pragma once
// The telemetry of a measurement: NVML readings before and after each trial, an on-GPU clock
// check after each trial, and the throttle decision. The runner opens one probe per measurement;
// `kerntime info` reads the live state through read_device_telemetry and read_snapshot.
//
// Nothing here throws or aborts a measurement: without NVML, device().available is false with
// the reason and the on-GPU clock check still runs; an NVML call failing mid-run empties its
// fields and adds one note to warnings().

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kerntime/protocol.hpp"
#include "kerntime/telemetry.hpp"
#include "telemetry/clock_check.hpp"
#include "telemetry/clock_event_reasons.hpp"
#include "telemetry/energy_window.hpp"
#include "telemetry/nvml_api.hpp"
#include "telemetry/nvml_reader.hpp"
#include "telemetry/throttle_decision.hpp"

namespace kerntime::detail {

// Where a probe gets its readings; tests replace the parts that need a driver or a GPU.
struct probe_setup {
  int cuda_device = 0;
  const nvml_api* nvml = nullptr;      // null: NVML unavailable, for nvml_unavailable_reason
  std::string nvml_unavailable_reason; // used when nvml is null
  std::string pci_bus_id;              // empty: asked from CUDA for cuda_device
  bool clock_check = true;             // the on-GPU check (needs a GPU, cuda_device current)
  // Tests without a GPU: the SM clock each trial measured, in place of the on-GPU check.
  std::function<std::optional<double>()> measured_sm_clock;
  // The shortest window whose energy is read at its end (tests shorten it).
  std::chrono::duration<double> energy_min_window = detail::energy_min_window;
  // Read the NVML handle and the device's static facts once per process and device (the system
  // probe does; tests whose fake driver changes between probes do not).
  bool remember_device = false;
  // Read the energy counter at the window's start on a thread of its own, beside the first trial
  // (the system probe does: the read takes milliseconds); tests that count the fake driver's
  // calls read it in order.
  bool energy_in_background = false;
};

class telemetry_probe {
public:
  // NVML from the system (KERNTIME_NVML_PATH overrides the library path).
  [[nodiscard]] static std::unique_ptr<telemetry_probe> open(int cuda_device, const protocol& p);
  [[nodiscard]] static std::unique_ptr<telemetry_probe> open(const probe_setup& setup,
                                                             const protocol& p);

  ~telemetry_probe();
  telemetry_probe(const telemetry_probe&) = delete;
  telemetry_probe& operator=(const telemetry_probe&) = delete;

  [[nodiscard]] const device_telemetry& device() const { return device_; }

  // Notes for measurement_result::warnings: NVML entry points that failed during the run, an
  // on-GPU clock check that could not be set up, no maximum clock to compare against.
  [[nodiscard]] const std::vector<std::string>& warnings() const { return warnings_; }

  // Host side only: the NVML snapshot taken before the trial's work is enqueued. The first call
  // of a measurement also opens its energy window (energy_window.hpp).
  void before_trial(cudaStream_t stream);

  // After the last trial: closes the energy window over `iterations` iterations, reading the
  // counter again only when the window is long enough to mean something.
  void close_energy_window(std::size_t iterations);
  // The closed window; empty without NVML or before close_energy_window.
  [[nodiscard]] const std::optional<energy_window>& energy() const { return energy_; }

  // Call after the trial's work is enqueued on `stream`. Enqueues the on-GPU clock check behind
  // that work (so it measures the clock the work ran at, not an idle one), synchronizes
  // `stream`, takes the NVML snapshot after the trial and judges the measured clock against the
  // protocol's throttle_threshold (throttle_decision.hpp).
  // A CUDA error on the stream is left in place for the caller, and the check's reading is empty.
  [[nodiscard]] trial_telemetry after_trial(cudaStream_t stream);

  // An NVML snapshot now, outside any trial (`kerntime info`); empty without NVML.
  [[nodiscard]] std::optional<gpu_snapshot> read_now();

private:
  telemetry_probe() = default;
  void collect_nvml_failures();
  void warn_once(const std::string& nvml_note); // "telemetry: <note>", each note once

  double throttle_threshold_ = 0.9;
  device_telemetry device_;
  std::optional<nvml_reader> reader_;
  std::unique_ptr<clock_check> clock_check_;
  std::function<std::optional<double>()> measured_sm_clock_stand_in_;
  std::optional<double> max_sm_clock_mhz_;
  std::optional<gpu_snapshot> before_;
  std::chrono::duration<double> energy_min_window_ = detail::energy_min_window;
  std::optional<energy_window> open_window_; // from the first before_trial to the window's end
  // The counter at the window's start, read beside the first trial rather than before it: the
  // read takes milliseconds (3-5 ms on the H200) and the counter steps only every ~100 ms.
  struct energy_reading {
    std::optional<std::uint64_t> mj;
    std::vector<std::string> failures;
  };
  std::future<energy_reading> energy_at_start_;
  bool energy_in_background_ = false;
  std::chrono::steady_clock::time_point energy_window_start_;
  std::optional<energy_window> energy_;
  std::vector<std::string> warnings_;
};

// The static facts of `cuda_device` as NVML reports them now (for `kerntime info`).
[[nodiscard]] device_telemetry read_device_telemetry(int cuda_device);
// The live clocks, power, temperature and clock-event reasons of `cuda_device`; empty without NVML.
[[nodiscard]] std::optional<gpu_snapshot> read_snapshot(int cuda_device);

} // namespace kerntime::detail
