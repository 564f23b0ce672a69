#include "measure/event_timer.hpp"

#include <fmt/format.h>

#include <vector>

#include "attribution/work_behaviour.hpp"
#include "kerntime/cuda.hpp"
#include "measure/event_pairs.hpp"
#include "measure/phase_clock.hpp"
#include "measure/trial_loop.hpp"
#include "result/summarise.hpp"

namespace kerntime::detail {

timed_trials time_with_events(iteration_context& context) {
  phase_clock clock;
  timed_trials timed;
  const int repeats = context.settings.repeats;
  event_pairs events(repeats);
  const auto untagged = [](const auto& launch) { launch(); };

  kept_trials kept = run_trials(
      context,
      [&](int trial) {
        const std::string where = fmt::format("trial {}", trial + 1);
        run_blocked_trial(context, where, untagged, [&](int r) {
          if (context.flush != nullptr) {
            context.flush->enqueue(context.stream); // before the start event: never timed
          }
          const int input_set = context.take_input_set();
          check_cuda(cudaEventRecord(events.start(r), context.stream), where);
          context.work(context.stream, input_set);
          check_cuda(cudaEventRecord(events.end(r), context.stream), where);
        });
        trial_result samples;
        samples.iterations.reserve(static_cast<std::size_t>(repeats));
        for (int r = 0; r < repeats; ++r) {
          float ms = 0;
          check_cuda(cudaEventElapsedTime(&ms, events.start(r), events.end(r)), where);
          const double ns = static_cast<double>(ms) * 1e6;
          samples.iterations.push_back({ns, ns});
        }
        timed.trials.push_back(std::move(samples));
        return timed.trials.size();
      },
      [&](std::size_t) { timed.trials.pop_back(); }, untagged,
      [&] { return precision_so_far(timed, context.settings.metric); });
  context.phases.trials = clock.lap();

  for (std::size_t t = 0; t < timed.trials.size(); ++t) {
    timed.trials[t].telemetry = std::move(kept.telemetry.at(t));
  }
  timed.warnings = std::move(kept.warnings);
  // CUDA events see no records to judge: only how the trials were queued is known.
  record_queueing(context, timed.work);
  for (auto& warning : warnings_about(timed.work, 0)) {
    timed.warnings.push_back(std::move(warning));
  }
  timed.stopped_because = kept.stopped_because;
  context.phases.summarise = clock.lap();
  return timed;
}

} // namespace kerntime::detail
