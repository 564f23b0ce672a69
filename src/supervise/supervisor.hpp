#pragma once
// The supervised run: states are measured in worker processes, one per device, and handed out
// from one queue. A state that crashes its worker, leaves the CUDA context unusable or runs past
// the state timeout is recorded as failed with the reason, a fresh worker starts, and the run
// goes on. Results stream back as each state completes, so a crash loses nothing measured.

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "kerntime/report.hpp"
#include "supervise/worker_process.hpp"

namespace kerntime::detail {

// One state to run: its identity (benchmark, axes, state name, plan index), as its record
// carries it whatever happens.
struct supervised_state {
  benchmark_run identity;
  std::optional<double> expected_seconds; // from an earlier run, for longest-first order
};

// One device and the command that starts a worker on it.
struct worker_slot {
  worker_launch launch;
  std::string label; // "GPU 1", for messages
};

struct supervisor_settings {
  std::vector<worker_slot> slots;
  double state_timeout_s = 600;
  double start_timeout_s = 120; // a worker that is not ready by then is killed
  // A worker told to stop (no states left, or after a fault) that has not exited by then is
  // killed: its teardown (CUPTI, a faulted context) must not hold the run.
  double exit_timeout_s = 30;
  int start_attempts = 2;           // a device whose workers fail to start this often is given up
  std::ostream* progress = nullptr; // one line per completed state (a terminal)
  std::ostream* events = nullptr;   // faults, restarts, devices given up (always)
};

// What the run cost beyond the states: the supervisor overhead docs/scale.md measures.
struct supervision_summary {
  int workers_started = 0;
  std::vector<double> worker_ready_seconds; // spawn to "ready", per worker started
  // Told to stop (no states left) to its exit, per worker that exited so: its teardown (CUPTI,
  // the CUDA context), which the command waits for.
  std::vector<double> worker_exit_seconds;
  int faults = 0; // crashed, cuda_fault or timed_out states
  // kerntime ab: the wall time its rounds spent waiting for their workers to be ready and, after
  // their trials, to exit (workers that start or exit together count once), summed over rounds
  // and GPUs (with several GPUs the sum can pass the wall time: their rounds run side by side).
  double start_wait_seconds = 0;
  double exit_wait_seconds = 0;
};

// The order the queue hands states out: states without an expected time first (in plan
// order), then the known ones longest first, so the longest do not end the run on one device.
[[nodiscard]] std::vector<std::size_t> queue_order(const std::vector<supervised_state>& states);

// Runs every state and returns their records in the order of `states`.
[[nodiscard]] std::vector<benchmark_run> supervise(const std::vector<supervised_state>& states,
                                                   const supervisor_settings& settings,
                                                   supervision_summary* summary = nullptr);

} // namespace kerntime::detail
