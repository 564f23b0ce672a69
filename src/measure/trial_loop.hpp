#pragma once
// The trial loop both timers share: telemetry around each trial, re-runs of throttled trials when
// the protocol asks, and each trial queued behind the blocking kernel. The timers differ only in
// how one trial's iterations are enqueued and read.

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kerntime/cuda.hpp"
#include "measure/iteration_context.hpp"
#include "measure/phase_clock.hpp"
#include "measure/queue_plan.hpp"
#include "measure/stopping_rule.hpp"
#include "telemetry/telemetry_probe.hpp"
#include "telemetry/throttle_summary.hpp"

namespace kerntime::detail {

// At most this many throttled trials are re-run in all, each after the recovery pause.
inline constexpr int max_throttle_reruns = 3;
inline constexpr std::chrono::milliseconds throttle_recovery{200};

// The blocking kernel releases the queue by itself after this much GPU time: the last guard, so
// that a mistake costs one second, not a hang. The stall watchdog releases it long before.
inline constexpr std::chrono::milliseconds blocking_timeout{1000};
// The host stopped queueing when no iteration returned for this long while the queue was held:
// a launch blocked in a full queue, or the work waits for the GPU. Far above the host time of one
// iteration of any op (tens of microseconds for a PyTorch op), far below the timeout.
inline constexpr std::chrono::milliseconds queue_stall{50};

// What the loop hands back beside the samples the timer collected itself.
struct kept_trials {
  std::vector<trial_telemetry> telemetry; // one per kept trial, in order
  std::vector<std::string> warnings;      // throttled trials, blocking timeouts
  int stalled_trials = 0;                 // trials re-run because the host stopped queueing
  stop_reason stopped_because = stop_reason::trial_count;
};

// `run_trial(slot)` runs one trial and returns a handle; `drop(handle)` forgets a re-run trial.
// `around_probe(fn)` wraps kerntime's own GPU work (the clock check) so the timer can tag it.
// `precision()` reads the kept trials' precision so far, for the stopping rule.
template <typename RunTrial, typename Drop, typename AroundProbe>
[[nodiscard]] kept_trials run_trials(iteration_context& context, RunTrial run_trial, Drop drop,
                                     AroundProbe around_probe,
                                     const std::function<median_precision()>& precision) {
  kept_trials kept;
  int reruns_left = context.settings.discard_throttled ? max_throttle_reruns : 0;
  std::size_t trials_run = 0; // kept, re-run and dropped: all of them are in the energy window
  for (int trial = 0;; ++trial) {
    for (;;) {
      if (context.probe != nullptr) {
        add_seconds_of(context.phases.telemetry,
                       [&] { around_probe([&] { context.probe->before_trial(context.stream); }); });
      }
      context.trial_stalled = false;
      auto handle = run_trial(trial);
      ++trials_run;
      trial_telemetry telemetry;
      if (context.probe != nullptr) {
        add_seconds_of(context.phases.telemetry, [&] {
          around_probe([&] { telemetry = context.probe->after_trial(context.stream); });
        });
      }
      // The watchdog released the queue mid-trial: the iterations queued after that point may
      // hold host gaps. The plan has learnt from it; run the trial again (bounded by the plan).
      if (context.trial_stalled && context.queue.stalls <= max_queue_stalls) {
        ++kept.stalled_trials;
        drop(handle);
        continue;
      }
      if (telemetry.throttled && reruns_left > 0) {
        --reruns_left;
        kept.warnings.push_back(fmt::format("trial {} was throttled ({}); re-ran it after {} ms",
                                            trial + 1, telemetry.throttle_reason,
                                            throttle_recovery.count()));
        drop(handle);
        context.recovery_pause(throttle_recovery);
        continue;
      }
      kept.telemetry.push_back(std::move(telemetry));
      break;
    }
    const std::chrono::duration<double> elapsed =
        std::chrono::steady_clock::now() - context.started;
    if (auto reason = stop_after(context.settings, trial + 1, elapsed.count(), precision)) {
      kept.stopped_because = *reason;
      break;
    }
  }
  if (context.probe != nullptr) {
    context.probe->close_energy_window(trials_run *
                                       static_cast<std::size_t>(context.settings.repeats));
  }
  // One line for the state, not one per trial (throttle_summary.hpp).
  if (const std::string throttled = describe_throttling(
          summarise_throttling(kept.telemetry, context.settings.throttle_threshold));
      !throttled.empty()) {
    kept.warnings.push_back("throttled: " + throttled + "; their samples are kept");
  }
  if (context.blocking_timeouts > 0) {
    kept.warnings.push_back(fmt::format(
        "in {} trial(s) the blocking kernel released the queue by its {} ms timeout: the host "
        "stopped queueing and the stall watchdog did not see it; this is a kerntime bug",
        context.blocking_timeouts, blocking_timeout.count()));
  }
  return kept;
}

// Queues one trial so the GPU runs it back to back (host launch gaps, wider while CUPTI
// instruments launches, stay out of the numbers): the iterations go in chunks (queue_plan.hpp),
// each behind the blocking kernel, released once the chunk is queued — or by the watchdog when the
// host stops queueing, which the plan learns from. `around_internal` wraps the blocking kernel's
// launch (the CUPTI timer tags it as kerntime's own); `enqueue_iteration(r)` queues iteration r of
// the trial. The queue is released even if that throws. Then waits for the device — work may run
// on streams joined back to ours — and checks it.
template <typename AroundInternal, typename EnqueueIteration>
void run_blocked_trial(iteration_context& context, const std::string& where,
                       AroundInternal around_internal, EnqueueIteration enqueue_iteration) {
  const int repeats = context.settings.repeats;
  for (int first = 0; first < repeats;) {
    const int chunk = context.queue.chunk_iterations;
    const int count = chunk > 0 ? std::min(chunk, repeats - first) : repeats - first;
    if (chunk == 0) {
      for (int r = first; r < first + count; ++r) {
        enqueue_iteration(r);
      }
      first += count;
      continue;
    }
    around_internal([&] { context.blocker->block(context.stream, blocking_timeout); });
    context.watchdog->arm(*context.blocker, queue_stall);
    std::optional<int> stalled_at;
    {
      const release_at_scope_end release(*context.blocker);
      try {
        for (int r = first; r < first + count; ++r) {
          enqueue_iteration(r);
          context.watchdog->step();
        }
      } catch (...) {
        (void)context.watchdog->disarm();
        throw;
      }
      stalled_at = context.watchdog->disarm();
    }
    if (stalled_at) {
      context.trial_stalled = true;
      context.queue = plan_after_stall(context.queue, *stalled_at);
    }
    first += count;
  }
  check_device(where);
  if (context.blocker->take_timed_out()) {
    ++context.blocking_timeouts;
  }
}

// How the trials were queued, for the result (work_behaviour's queue fields).
inline void record_queueing(const iteration_context& context, work_behaviour& work) {
  work.queue_chunk_iterations = context.queue.chunk_iterations;
  work.queue_stalls = context.queue.stalls;
  work.launch_queue_depth = context.launch_queue_depth.value_or(0);
}

} // namespace kerntime::detail
