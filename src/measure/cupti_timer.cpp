#include "measure/cupti_timer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <iterator>
#include <optional>
#include <vector>

#include "attribution/attribution.hpp"
#include "attribution/work_behaviour.hpp"
#include "counters/counter_pass.hpp"
#include "counters/counters_summary.hpp"
#include "kerntime/cuda.hpp"
#include "measure/phase_clock.hpp"
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

void run_iteration(cupti_session& session, iteration_context& context, std::uint64_t id,
                   int input_set) {
  if (context.flush != nullptr) {
    const tag_scope flush_tag(session, tag_kind::flush, id);
    context.flush->enqueue(context.stream);
  }
  const tag_scope iteration_tag(session, tag_kind::iteration, id);
  context.work(context.stream, input_set);
}

void run_iteration(cupti_session& session, iteration_context& context, std::uint64_t id) {
  const int input_set = context.take_input_set();
  run_iteration(session, context, id, input_set);
}

// The calls before the trials, none of them counted: the first after attaching (it pays CUPTI's
// set-up), and with several input sets one on the same inputs and one on rotated inputs. Their
// records say how many launches an iteration queues, whether the work waits for the GPU, and
// whether rotating the inputs adds kernels; the plan for queueing the trials follows from them.
struct first_calls {
  std::uint64_t first = 0;
  std::optional<std::uint64_t> same_inputs;
  std::optional<std::uint64_t> rotated_inputs;
  int launches = 0; // GPU launches of the first call (learned from its records)
  std::vector<watched_call> calls_to_watch; // in the trials (cupti/watched_calls.hpp)
};

// Plans the queue; returns the kernels rotation added.
std::vector<std::string> learn_from_first_calls(cupti_session& session, iteration_context& context,
                                                first_calls& ids) {
  check_device("the first iterations after attaching CUPTI");
  const activity_log early = session.records_so_far();
  const auto waits = host_waits_by_iteration(early);
  ids.launches = launches_of_iteration(early, ids.first);
  ids.calls_to_watch = calls_to_watch(early);
  if (waits.empty()) {
    context.queue = plan_queue(context.settings.repeats, context.launch_queue_depth, ids.launches);
  } else {
    context.queue.chunk_iterations = 0; // the host waits on the queue it would have to release
  }
  if (!ids.same_inputs || !ids.rotated_inputs) {
    return {};
  }
  return kernels_added_by_rotation(early, *ids.same_inputs, *ids.rotated_inputs);
}

// The counter pass on one more iteration: flushed and finished first, then the work on the next
// input set, profiled (counters/counter_pass.hpp). Runs while CUPTI is initialised, activity off;
// its time is the counter_pass phase.
counter_pass_outcome run_counter_pass_of(iteration_context& context, int expected_launches) {
  phase_clock clock;
  counter_pass_request request;
  request.metrics = context.settings.metrics;
  request.device_ordinal = context.device_ordinal;
  request.expected_ranges = static_cast<std::size_t>(std::max(expected_launches, 1));
  const int input_set = context.take_input_set();
  counter_pass_outcome outcome = run_counter_pass(
      request,
      [&] {
        if (context.flush != nullptr) {
          context.flush->enqueue(context.stream);
        }
        check_cuda(cudaStreamSynchronize(context.stream), "the counter pass's flush");
      },
      [&] { context.work(context.stream, input_set); },
      [&] { check_cuda(cudaStreamSynchronize(context.stream), "the counter pass's iteration"); });
  context.phases.counter_pass += clock.lap();
  return outcome;
}

// The records of the traced trial's first iteration, in start order.
std::vector<trace_record> first_iteration(const std::vector<trace_record>& trace) {
  std::vector<trace_record> records;
  std::copy_if(trace.begin(), trace.end(), std::back_inserter(records),
               [](const trace_record& r) { return r.iteration == 0; });
  return records;
}

// Why this measurement cannot run the counter pass, or nothing when it can: the check before the
// run failed, or CUPTI is shared with an idle torch.profiler.
std::optional<std::string> counters_blocked(const cupti_session& session,
                                            const iteration_context& context) {
  if (!context.counters_unavailable.empty()) {
    return context.counters_unavailable;
  }
  if (session.shared()) {
    return "CUPTI is shared with an idle torch.profiler (docs/torch-profiler.md); the counter pass "
           "needs kerntime's own CUPTI session: set TEARDOWN_CUPTI=1 before profiling, or measure "
           "counters in a process that has not profiled";
  }
  return std::nullopt;
}

} // namespace

counters_summary counters_with_cupti(cupti_session& session, iteration_context& context) {
  if (auto blocked = counters_blocked(session, context)) {
    return counters_unavailable_because(std::move(*blocked));
  }
  // One traced call names the kernels in launch order (the first after attaching pays CUPTI's
  // set-up, which does not change which kernels run); then the counter pass profiles the next.
  phase_clock clock;
  constexpr std::uint64_t traced = 1;
  run_iteration(session, context, traced);
  check_device("the traced iteration before the counter pass");
  const int launches = launches_of_iteration(session.records_so_far(), traced);
  context.phases.first_calls = clock.lap();
  std::optional<counter_pass_outcome> pass;
  const activity_log log = session.detach([&] { pass = run_counter_pass_of(context, launches); });
  context.phases.detach = clock.lap();
  check_device("the counter pass");
  iteration_layout layout;
  layout.repeats = 1;
  layout.trial_first_ids = {traced};
  const timed_trials timed = attribute(log, layout);
  if (!pass) {
    return counters_unavailable_because("the counter pass did not run; this is a kerntime bug");
  }
  return summarise_counters(*pass, first_iteration(timed.trace), timed.kernels, 0.0);
}

timed_trials time_with_cupti(cupti_session& session, iteration_context& context) {
  phase_clock clock;
  iteration_layout layout;
  layout.repeats = context.settings.repeats;
  std::uint64_t next_id = 1;

  first_calls ids;
  ids.first = next_id++;
  const int first_set = context.take_input_set();
  run_iteration(session, context, ids.first, first_set);
  if (context.settings.input_sets > 1) {
    ids.same_inputs = next_id++;
    run_iteration(session, context, *ids.same_inputs, first_set);
    ids.rotated_inputs = next_id++;
    run_iteration(session, context, *ids.rotated_inputs);
  }
  for (std::uint64_t id = ids.first; id < next_id; ++id) {
    layout.ignored.insert(id);
  }
  std::vector<std::string> rotation_added = learn_from_first_calls(session, context, ids);
  const int expected_launches = ids.launches;
  // The trials see the calls that launch and wait through callbacks, not a record of every
  // runtime and driver call: the same tags at about half CUPTI's host cost for PyTorch's ops
  // (docs/queue.md). Where that cannot be had, they record every call as the first calls did.
  (void)session.watch_calls(ids.calls_to_watch);
  context.phases.first_calls = clock.lap();

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
        run_blocked_trial(context, fmt::format("trial {}", trial + 1), as_internal, [&](int r) {
          run_iteration(session, context, first + static_cast<std::uint64_t>(r));
        });
        next_id += static_cast<std::uint64_t>(context.settings.repeats);
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
        return precision_so_far(attribute(session.records_so_far(), layout),
                                context.settings.metric);
      });

  context.phases.trials = clock.lap();

  // Detach before reading: no launch may come between disabling and finalizing CUPTI but the
  // counter pass's, which needs CUPTI initialised and activity off.
  std::optional<counter_pass_outcome> pass;
  std::function<void()> counter_pass;
  const std::optional<std::string> counters_blocked_because =
      context.settings.counters ? counters_blocked(session, context) : std::nullopt;
  if (context.settings.counters && !counters_blocked_because) {
    counter_pass = [&] { pass = run_counter_pass_of(context, expected_launches); };
  }
  const activity_log log = session.detach(counter_pass);
  context.phases.detach = clock.lap();
  // After a fault CUPTI still reports success and zero timestamps: the CUDA error comes first.
  check_device("the measured trials");
  timed_trials timed = attribute(log, layout);
  for (std::size_t t = 0; t < timed.trials.size(); ++t) {
    timed.trials[t].telemetry = std::move(kept.telemetry.at(t));
  }
  timed.warnings.insert(timed.warnings.begin(), kept.warnings.begin(), kept.warnings.end());
  timed.work = judge_work(log, layout);
  timed.work.rotation_added_kernels = std::move(rotation_added);
  record_queueing(context, timed.work);
  for (auto& warning : warnings_about(timed.work, static_cast<int>(timed.trials.size()) *
                                                      context.settings.repeats)) {
    timed.warnings.push_back(std::move(warning));
  }
  timed.stopped_because = kept.stopped_because;
  if (pass) {
    timed.counters = summarise_counters(*pass, first_iteration(timed.trace), timed.kernels, 0.0);
  } else if (counters_blocked_because) {
    timed.counters = counters_unavailable_because(*counters_blocked_because);
  }
  context.phases.summarise = clock.lap();
  return timed;
}

} // namespace kerntime::detail
