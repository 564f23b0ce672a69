#pragma once
// GPU state around each trial: what NVML reports and what an on-GPU clock check measured.
// kerntime reads the card as it finds it and never changes clocks, power limits or persistence.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kerntime {

// One NVML reading. Fields NVML could not read stay empty.
struct gpu_snapshot {
  std::optional<unsigned> sm_clock_mhz;
  std::optional<unsigned> memory_clock_mhz;
  std::optional<double> power_w;
  std::optional<unsigned> temperature_c;
  std::optional<std::uint64_t> clock_event_reasons; // NVML clock-event (throttle) bitmask
  std::vector<std::string> clock_event_names;       // the bitmask decoded
};

struct trial_telemetry {
  std::optional<gpu_snapshot> before;
  std::optional<gpu_snapshot> after;
  std::optional<double> measured_sm_clock_mhz; // clock64 cycles over %globaltimer, on the GPU
  // The measured clock over the maximum SM clock: what the throttle rule compares with the
  // protocol's throttle_threshold. Empty when either is unknown (the trial is then not judged).
  std::optional<double> sm_clock_fraction;
  bool throttled = false; // sm_clock_fraction < throttle_threshold; NVML's reasons never decide
  std::string throttle_reason; // why the trial was flagged, empty when not throttled
};

// The energy of a measurement: NVML's total-energy counter read before the first trial and after
// the last. What it covers: every trial, the L2 flush before each iteration and the gaps between
// trials included (docs/telemetry.md). Read only over at least 2 s of trials (the counter moves
// in ~100 ms steps); never a zero for "unknown": unavailable, with the reason.
struct energy_summary {
  bool available = false;
  std::string unavailable_reason;
  std::optional<double> joules_per_iteration; // the window's energy over its iterations
  std::optional<double> average_watts;        // the window's energy over its length
  std::optional<double> window_s;             // host seconds between the two counter reads
  std::size_t window_iterations = 0;          // iterations run in the window, re-run trials too
};

// Static facts about the device, read once per measurement.
struct device_telemetry {
  bool available = false;
  std::string unavailable_reason; // set when NVML could not be used
  std::string name;               // as NVML names the device
  std::string pci_bus_id;         // the CUDA device's PCI bus id, matched to the NVML device
  std::string uuid;
  std::string driver_version;
  std::optional<unsigned> max_sm_clock_mhz;
  std::optional<unsigned> max_memory_clock_mhz;
  std::optional<unsigned> application_sm_clock_mhz;
  std::optional<unsigned> application_memory_clock_mhz;
  std::optional<double> power_limit_w;
  std::optional<bool> clocks_locked;
};

} // namespace kerntime
