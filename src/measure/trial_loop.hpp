#pragma once
// The trial loop both timers share: telemetry around each trial, re-runs of throttled trials when
// the protocol asks, and each trial queued behind the blocking kernel. The timers differ only in
// how one trial's iterations are enqueued and read.

#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "kerntime/cuda.hpp"
#include "measure/iteration_context.hpp"
#include "measure/stopping_rule.hpp"
#include "telemetry/telemetry_probe.hpp"

namespace kerntime::detail {

// At most this many throttled trials are re-run in all, each after the recovery pause.
inline constexpr int max_throttle_reruns = 3;
inline constexpr std::chrono::milliseconds throttle_recovery{200};

// The blocking kernel releases the queue by itself after this much GPU time. Long enough that
// queueing a trial never reaches it; short enough that a full launch queue (the host blocked
// behind the blocking kernel, ~1,000 pending launches) costs one second, not a hang. A trial it
// released may hold host launch gaps, and the measurement says so.
inline constexpr std::chrono::milliseconds blocking_timeout{1000};

// What the loop hands back beside the samples the timer collected itself.
struct kept_trials {
  std::vector<trial_telemetry> telemetry; // one per kept trial, in order
  std::vector<std::string> warnings;      // throttled trials, blocking timeouts
  stop_reason stopped_because = stop_reason::trial_count;
};

// `run_trial(slot)` runs one trial and returns a handle; `drop(handle)` forgets a re-run trial.
// `around_probe(fn)` wraps kerntime's own GPU work (the clock check) so the timer can tag it.
// `trial_medians()` reads the kept trials' headline medians so far, for the stopping rule.
template <typename RunTrial, typename Drop, typename AroundProbe>
[[nodiscard]] kept_trials run_trials(iteration_context& context, RunTrial run_trial, Drop drop,
                                     AroundProbe around_probe,
                                     const std::function<std::vector<double>()>& trial_medians) {
  kept_trials kept;
  int reruns_left = context.settings.discard_throttled ? max_throttle_reruns : 0;
  for (int trial = 0;; ++trial) {
    for (;;) {
      if (context.probe != nullptr) {
        around_probe([&] { context.probe->before_trial(context.stream); });
      }
      auto handle = run_trial(trial);
      trial_telemetry telemetry;
      if (context.probe != nullptr) {
        around_probe([&] { telemetry = context.probe->after_trial(context.stream); });
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
      if (telemetry.throttled) {
        kept.warnings.push_back(fmt::format("trial {} was throttled ({}); its samples are kept",
                                            trial + 1, telemetry.throttle_reason));
      }
      kept.telemetry.push_back(std::move(telemetry));
      break;
    }
    const std::chrono::duration<double> elapsed =
        std::chrono::steady_clock::now() - context.started;
    if (auto reason = stop_after(context.settings, trial + 1, elapsed.count(), trial_medians)) {
      kept.stopped_because = *reason;
      break;
    }
  }
  if (context.blocking_timeouts > 0) {
    kept.warnings.push_back(fmt::format(
        "in {} trial(s) the host took longer than {} ms to queue the iterations (the launch queue "
        "filled up), so the GPU started before all work was queued: times may include host launch "
        "gaps; use fewer repeats per trial",
        context.blocking_timeouts, blocking_timeout.count()));
  }
  return kept;
}

// Queues one trial behind the blocking kernel so the GPU runs it back to back (host launch gaps,
// wider while CUPTI instruments launches, stay out of the numbers): `around_internal` wraps the
// blocking kernel's launch (the CUPTI timer tags it as kerntime's own), `enqueue_iterations`
// queues the trial, and the queue is released even if that throws. Then waits for the device —
// work may run on streams joined back to ours — and checks it.
template <typename AroundInternal, typename EnqueueIterations>
void run_blocked_trial(iteration_context& context, const std::string& where,
                       AroundInternal around_internal, EnqueueIterations enqueue_iterations) {
  around_internal([&] { context.blocker->block(context.stream, blocking_timeout); });
  {
    const release_at_scope_end release(*context.blocker);
    enqueue_iterations();
  }
  check_device(where);
  if (context.blocker->timed_out()) {
    ++context.blocking_timeouts;
  }
}

} // namespace kerntime::detail
