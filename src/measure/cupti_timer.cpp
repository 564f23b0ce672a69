#include "measure/cupti_timer.hpp"

#include <fmt/format.h>

#include "attribution/attribution.hpp"
#include "kerntime/cuda.hpp"
#include "measure/trial_loop.hpp"
#include "result/summarise.hpp"

namespace kerntime::detail {
namespace {

// Pushes a tag for the lifetime of the scope, so an exception from the work still pops it.
class tag_scope {
public:
  tag_scope(cupti_session& session, tag_kind kind, std::uint64_t id)
      : session_(session), kind_(kind) {
    session_.push(kind_, id);
  }
  ~tag_scope() {
    try {
      session_.pop(kind_);
    } catch (...) {
      // Popping fails only if CUPTI is gone; the exception already in flight says more.
    }
  }
  tag_scope(const tag_scope&) = delete;
  tag_scope& operator=(const tag_scope&) = delete;

private:
  cupti_session& session_;
  tag_kind kind_;
};

void run_iteration(cupti_session& session, iteration_context& context, std::uint64_t id) {
  if (context.flush != nullptr) {
    const tag_scope flush_tag(session, tag_kind::flush, id);
    context.flush->enqueue(context.stream);
  }
  const int input_set = context.take_input_set();
  const tag_scope iteration_tag(session, tag_kind::iteration, id);
  context.work(context.stream, input_set);
}

} // namespace

timed_trials time_with_cupti(cupti_session& session, iteration_context& context) {
  iteration_layout layout;
  layout.repeats = context.settings.repeats;
  std::uint64_t next_id = 1;

  // The first iteration after attaching carries CUPTI's set-up cost: run it, never count it.
  layout.ignored.insert(next_id);
  run_iteration(session, context, next_id++);

  std::uint64_t internal_id = 0;
  // kerntime's own GPU work (the blocking kernel, the clock check) carries a tag of its own.
  const auto as_internal = [&](const auto& launch) {
    const tag_scope internal(session, tag_kind::internal, ++internal_id);
    launch();
  };
  kept_trials kept = run_trials(
      context,
      [&](int trial) {
        const std::uint64_t first = next_id;
        run_blocked_trial(context, fmt::format("trial {}", trial + 1), as_internal, [&] {
          for (int r = 0; r < context.settings.repeats; ++r) {
            run_iteration(session, context, next_id++);
          }
        });
        layout.trial_first_ids.push_back(first);
        return first;
      },
      [&](std::uint64_t first) {
        layout.trial_first_ids.pop_back();
        for (int r = 0; r < context.settings.repeats; ++r) {
          layout.ignored.insert(first + static_cast<std::uint64_t>(r));
        }
      },
      as_internal,
      [&] {
        // The stopping rule's look at the trials so far: every record of a finished trial has
        // been written (the trial ended with a device synchronisation), so a forced flush
        // delivers them and attribution gives the same samples the final one will.
        return headline_medians(attribute(session.records_so_far(), layout).trials,
                                context.settings.metric);
      });

  // Detach before reading: no launch may come between disabling and finalizing CUPTI.
  const activity_log log = session.detach();
  // After a fault CUPTI still reports success and zero timestamps: the CUDA error comes first.
  check_device("the measured trials");
  timed_trials timed = attribute(log, layout);
  for (std::size_t t = 0; t < timed.trials.size(); ++t) {
    timed.trials[t].telemetry = std::move(kept.telemetry.at(t));
  }
  timed.warnings.insert(timed.warnings.begin(), kept.warnings.begin(), kept.warnings.end());
  timed.stopped_because = kept.stopped_because;
  return timed;
}

} // namespace kerntime::detail
