#pragma once
// Everything a timer needs to run the protocol's iterations, prepared by measure() before timing:
// nothing is allocated once the timed region starts.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <thread>

#include "flush/l2_flush.hpp"
#include "kerntime/measure.hpp"
#include "measure/blocking_kernel.hpp"
#include "measure/queue_plan.hpp"
#include "measure/stall_watchdog.hpp"

namespace kerntime::detail {

class telemetry_probe;

struct iteration_context {
  const work_function& work;
  const protocol& settings;
  cudaStream_t stream;
  l2_flush* flush;          // null when flush_l2 is off
  telemetry_probe* probe;   // null when telemetry is off
  blocking_kernel* blocker; // holds each chunk of a trial's queue until it is fully enqueued
  stall_watchdog* watchdog = nullptr;      // releases the blocker when the host stops queueing
  queue_plan queue{};                      // how trials are queued (queue_plan.hpp)
  std::optional<int> launch_queue_depth{}; // measured at start-up (launch_queue.hpp)
  // The pause before re-running a throttled trial; tests replace it so they do not sleep.
  std::function<void(std::chrono::milliseconds)> recovery_pause = [](std::chrono::milliseconds ms) {
    std::this_thread::sleep_for(ms);
  };
  // When the measurement began: stop_at_ci's max_time_s counts from here.
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  long long next_iteration = 0; // counts every call of `work`, warmup included
  int blocking_timeouts = 0;    // trials the blocking kernel's timeout released (trial_loop.hpp)
  bool trial_stalled = false;   // the watchdog released the queue during the current trial
  int device_ordinal = 0;       // the device measured (the counter pass profiles it)
  // Counters were asked for but the check before the run found them unavailable: why.
  std::string counters_unavailable{};
  host_phases phases{}; // where the host time went; each stage fills in its own phases

  // The input set of the next call, rotating over all sets.
  int take_input_set() { return static_cast<int>(next_iteration++ % settings.input_sets); }
};

} // namespace kerntime::detail
