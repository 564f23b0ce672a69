#pragma once
// Runs the protocol's trials with telemetry around each one, re-running throttled trials when the
// protocol asks. Both timers use it; they differ only in how one trial is run and read.

#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <thread>

#include "measure/cuda_check.hpp"
#include "measure/timed_trials.hpp"
#include "telemetry/telemetry_probe.hpp"

namespace kerntime::detail {

// `run_trial(slot)` runs one trial and returns a handle; `drop(handle)` forgets a re-run trial.
// `around_probe(fn)` wraps kerntime's own GPU work (the clock check) so the timer can tag it.
template <typename RunTrial, typename Drop, typename AroundProbe>
void run_trials(iteration_context& context, timed_trials& out, RunTrial run_trial, Drop drop,
                AroundProbe around_probe) {
  int reruns_left = context.settings.discard_throttled ? max_throttle_reruns : 0;
  for (int trial = 0; trial < context.settings.trials; ++trial) {
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
        out.warnings.push_back(fmt::format("trial {} was throttled ({}); re-ran it after {} ms",
                                           trial + 1, telemetry.throttle_reason,
                                           throttle_recovery_ms));
        drop(handle);
        std::this_thread::sleep_for(std::chrono::milliseconds(throttle_recovery_ms));
        continue;
      }
      if (telemetry.throttled) {
        out.warnings.push_back(fmt::format("trial {} was throttled ({}); its samples are kept",
                                           trial + 1, telemetry.throttle_reason));
      }
      out.telemetry.push_back(std::move(telemetry));
      break;
    }
  }
}

// Queues one trial behind the blocking kernel so the GPU runs it back to back (host launch gaps,
// wider while CUPTI instruments launches, stay out of the numbers): `around_internal` wraps the
// blocking kernel's launch (the CUPTI timer tags it as kerntime's own), `enqueue_iterations`
// queues the trial, and the queue is released even if that throws. Then waits for the device —
// work may run on streams joined back to ours — and checks it. Returns whether the blocking
// kernel ran into its timeout, i.e. the GPU may have started before the trial was queued.
template <typename AroundInternal, typename EnqueueIterations>
[[nodiscard]] bool run_blocked_trial(iteration_context& context, const std::string& where,
                                     AroundInternal around_internal,
                                     EnqueueIterations enqueue_iterations) {
  around_internal([&] { context.blocker->block(context.stream, blocking_timeout_ms); });
  {
    const release_at_scope_end release(*context.blocker);
    enqueue_iterations();
  }
  check_device(where);
  return context.blocker->timed_out();
}

} // namespace kerntime::detail
