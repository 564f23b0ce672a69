// The trial loop when the host stopped queueing mid-trial (the watchdog released the queue): the
// trial is dropped and run again with the plan learnt from the stall, and a work that waits for
// the GPU ends up queued without a blocking kernel instead of stalling every trial.

#include <gtest/gtest.h>

#include <vector>

#include "measure/queue_plan.hpp"
#include "measure/trial_loop.hpp"

namespace kerntime::detail {
namespace {

struct stall_run {
  int trials_run = 0;
  int dropped = 0;
  std::vector<int> chunks; // the chunk each trial ran with
  kept_trials out;
};

// `stalls_at(chunk)`: iterations queued before the host stopped, or -1 when it did not.
template <typename StallsAt>
stall_run run_with_stalls(int trials, int repeats, StallsAt stalls_at) {
  protocol p;
  p.trials = trials;
  p.repeats = repeats;
  p.telemetry = false;
  const work_function work = [](cudaStream_t, int) {};
  iteration_context context{work, p, nullptr, nullptr, nullptr, nullptr};
  context.queue = plan_queue(repeats, std::nullopt, 0);
  stall_run run;
  run.out = run_trials(
      context,
      [&](int) {
        ++run.trials_run;
        run.chunks.push_back(context.queue.chunk_iterations);
        if (const int at = stalls_at(context.queue.chunk_iterations); at >= 0) {
          context.trial_stalled = true;
          context.queue = plan_after_stall(context.queue, at);
        }
        return run.trials_run;
      },
      [&](int) { ++run.dropped; }, [](const auto& probe_call) { probe_call(); },
      [] { return median_precision{}; });
  return run;
}

TEST(queue_stall, a_full_launch_queue_costs_one_rerun_then_every_trial_fits) {
  // 2,000 tiny kernels: the queue took 333 iterations, so a whole trial stalls; 249 fit.
  const stall_run run = run_with_stalls(5, 2000, [](int chunk) { return chunk > 333 ? 333 : -1; });
  EXPECT_EQ(run.trials_run, 6);
  EXPECT_EQ(run.dropped, 1);
  EXPECT_EQ(run.out.stalled_trials, 1);
  EXPECT_EQ(run.chunks, (std::vector<int>{2000, 249, 249, 249, 249, 249}));
  EXPECT_EQ(run.out.telemetry.size(), 5U);
}

TEST(queue_stall, work_that_waits_for_the_gpu_is_queued_without_a_blocking_kernel) {
  // .item() in the work: the first iteration never returns while the queue is held.
  const stall_run run = run_with_stalls(5, 50, [](int chunk) { return chunk > 0 ? 0 : -1; });
  EXPECT_EQ(run.trials_run, 6);
  EXPECT_EQ(run.dropped, 1);
  EXPECT_EQ(run.chunks, (std::vector<int>{50, 0, 0, 0, 0, 0}));
}

TEST(queue_stall, a_host_that_keeps_stalling_is_rerun_a_bounded_number_of_times) {
  const stall_run run = run_with_stalls(3, 50, [](int chunk) { return chunk > 0 ? 10 : -1; });
  EXPECT_EQ(run.dropped, max_queue_stalls);
  EXPECT_EQ(run.trials_run, 3 + max_queue_stalls);
  EXPECT_EQ(run.chunks.back(), 0);
}

} // namespace
} // namespace kerntime::detail
