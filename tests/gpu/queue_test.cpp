// Deep queues and work that waits for the GPU (docs/queue.md): a trial with more launches than
// the launch queue holds behind the blocking kernel is queued in chunks and never waits for the
// blocking kernel's timeout; work that synchronizes is said to, and does not stall either.

#include <kerntime/cuda.hpp>
#include <kerntime/measure.hpp>

#include <chrono>
#include <string>
#include <thread>

#include "cuda_check.hpp"
#include "fill_kernel.hpp"
#include "gpu_test.hpp"
#include "spin_kernel.hpp"

namespace kerntime::gpu_tests {
namespace {

bool has_warning_containing(const measurement_result& r, const std::string& text) {
  for (const auto& w : r.warnings) {
    if (w.find(text) != std::string::npos) {
      return true;
    }
  }
  return false;
}

std::string warnings_of(const measurement_result& r) {
  std::string out;
  for (const auto& w : r.warnings) {
    out += "\n  " + w;
  }
  return out;
}

// The GPU time of the measured iterations with their flushes: what the wall time is held to.
double gpu_seconds(const measurement_result& r) {
  double ns = 0;
  for (const auto& trial : r.trials) {
    for (const auto& it : trial.iterations) {
      ns += it.span_ns + r.flush_median_ns;
    }
  }
  return ns * 1e-9;
}

// A 5 µs kernel, then a stream synchronize inside the work: the result and the wall time.
struct synchronizing_measurement {
  measurement_result result;
  std::chrono::duration<double> wall;
};
synchronizing_measurement measure_synchronizing_work(const protocol& p) {
  const auto started = std::chrono::steady_clock::now();
  measurement_result r = measure(
      [](cudaStream_t stream, int) {
        testkit::launch_spin(stream, std::chrono::microseconds(5));
        KT_CUDA_CHECK(cudaStreamSynchronize(stream));
      },
      p);
  return {std::move(r), std::chrono::steady_clock::now() - started};
}

class queue : public gpu_test {};

TEST_F(queue, two_thousand_tiny_kernels_per_trial_finish_without_the_timeout) {
  protocol p;
  p.repeats = 2000;
  p.backend = backend_request::cupti;
  const measurement_result r =
      measure([](cudaStream_t stream, int) { testkit::launch_empty(stream); }, p);
  ASSERT_EQ(r.backend, timing_backend::cupti);
  EXPECT_GT(r.work.launch_queue_depth, 100);
  EXPECT_GT(r.work.queue_chunk_iterations, 0);
  EXPECT_LT(r.work.queue_chunk_iterations, 2000);
  EXPECT_EQ(r.work.queue_stalls, 0);
  EXPECT_FALSE(has_warning_containing(r, "timeout")) << warnings_of(r);
  EXPECT_FALSE(has_warning_containing(r, "waited for the host")) << warnings_of(r);
  const double gpu = gpu_seconds(r);
  std::printf("tiny kernel x 2000 x %zu trials: wall %.3f s, GPU (flush included) %.3f s, "
              "ratio %.2f; queue depth %d launches, chunk %d iterations, host gaps %d of %d "
              "(longest %.1f us)\n",
              r.trials.size(), r.wall_seconds, gpu, r.wall_seconds / gpu, r.work.launch_queue_depth,
              r.work.queue_chunk_iterations, r.work.host_gap_iterations, r.work.judged_iterations,
              r.work.longest_host_gap_ns / 1e3);
  // Before: 12.7 s (every trial on the 1 s timeout). On the H200 (docs/queue.md) this test read
  // 0.63 s for 0.32 s and 0.58 s once the trials watched calls instead of recording every API
  // call; the 1.5 × target is judged on the CLI command there, not here (a timed test
  // would flake on a shared machine).
  EXPECT_LT(r.wall_seconds, 1.0);
}

TEST_F(queue, work_that_synchronizes_is_said_to_and_does_not_wait_for_the_timeout) {
  protocol p;
  p.backend = backend_request::cupti;
  const auto [r, wall] = measure_synchronizing_work(p);
  ASSERT_EQ(r.backend, timing_backend::cupti);
  const int measured = p.trials * p.repeats;
  EXPECT_EQ(r.work.synchronizing_iterations, measured);
  EXPECT_EQ(r.work.synchronizing_calls, std::vector<std::string>{"cudaStreamSynchronize"});
  EXPECT_EQ(r.work.queue_chunk_iterations, 0);
  EXPECT_TRUE(has_warning_containing(
      r, "the work synchronizes with the host: cudaStreamSynchronize in every iteration"))
      << warnings_of(r);
  EXPECT_FALSE(has_warning_containing(r, "timeout")) << warnings_of(r);
  std::printf("synchronizing work: wall %.3f s for %d iterations; median %.2f us; host gaps %d "
              "of %d\n",
              wall.count(), measured, r.latency_ns / 1e3, r.work.host_gap_iterations,
              r.work.judged_iterations);
  EXPECT_LT(wall.count(), 1.0); // one timeout per trial was 5 s
}

TEST_F(queue, an_iteration_the_host_was_late_for_is_a_host_gap_on_the_records_clock) {
  // The host sleeps between queueing the flush and the work's launch, and the work waits for the
  // GPU (so nothing is queued ahead): after every flush the GPU idles ~170 us for the host. The
  // rule compares the launch call's end (a watched call in the trials) with GPU timestamps, so a
  // call end on another clock would hide every gap.
  protocol p;
  p.backend = backend_request::cupti;
  p.trials = 2;
  p.repeats = 20;
  const measurement_result r = measure(
      [](cudaStream_t stream, int) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        testkit::launch_spin(stream, std::chrono::microseconds(5));
        KT_CUDA_CHECK(cudaStreamSynchronize(stream));
      },
      p);
  ASSERT_EQ(r.backend, timing_backend::cupti);
  const int measured = p.trials * p.repeats;
  EXPECT_EQ(r.work.judged_iterations, measured);
  EXPECT_EQ(r.work.host_gap_iterations, measured);
  EXPECT_GE(r.work.longest_host_gap_ns, 100'000.0);
  std::printf("host late by 200 us: host gaps %d of %d, longest %.1f us\n",
              r.work.host_gap_iterations, r.work.judged_iterations,
              r.work.longest_host_gap_ns / 1e3);
}

TEST_F(queue, work_that_starts_to_synchronize_only_in_the_trials_is_released_and_said_to) {
  // The calls before the trials do not wait, so the trials are queued in chunks behind the
  // blocking kernel; the first synchronize inside a chunk must release it, not wait it out.
  protocol p;
  p.backend = backend_request::cupti;
  p.trials = 2;
  p.repeats = 20;
  int calls = 0;
  const auto started = std::chrono::steady_clock::now();
  const measurement_result r = measure(
      [&](cudaStream_t stream, int) {
        testkit::launch_spin(stream, std::chrono::microseconds(5));
        // The warm-up, the first call and the two that compare input sets do not wait.
        if (++calls > p.warmup + 3) {
          KT_CUDA_CHECK(cudaStreamSynchronize(stream));
        }
      },
      p);
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - started;
  ASSERT_EQ(r.backend, timing_backend::cupti);
  EXPECT_EQ(r.work.synchronizing_iterations, p.trials * p.repeats);
  EXPECT_EQ(r.work.synchronizing_calls, std::vector<std::string>{"cudaStreamSynchronize"});
  EXPECT_TRUE(
      has_warning_containing(r, "the work synchronizes with the host: cudaStreamSynchronize"))
      << warnings_of(r);
  EXPECT_FALSE(has_warning_containing(r, "timeout")) << warnings_of(r);
  std::printf("work that synchronizes from the trials on: wall %.3f s\n", wall.count());
  EXPECT_LT(wall.count(), 1.0);
}

TEST_F(queue, with_events_work_that_synchronizes_loses_the_blocking_kernel_after_one_stall) {
  protocol p;
  p.backend = backend_request::events;
  const auto [r, wall] = measure_synchronizing_work(p);
  EXPECT_EQ(r.work.queue_chunk_iterations, 0);
  EXPECT_EQ(r.work.queue_stalls, 1);
  EXPECT_TRUE(has_warning_containing(r, "ran without the blocking kernel")) << warnings_of(r);
  EXPECT_FALSE(has_warning_containing(r, "timeout")) << warnings_of(r);
  std::printf("synchronizing work, events: wall %.3f s\n", wall.count());
  EXPECT_LT(wall.count(), 1.0);
}

TEST_F(queue, kernels_that_only_rotated_inputs_run_are_named_with_the_advice) {
  // Like a CUDA graph with static input buffers: a call on new inputs first copies them in.
  constexpr std::size_t count = 1 << 20;
  device_buffer<int> static_input(count);
  int last_set = -1;
  protocol p;
  p.trials = 2;
  p.repeats = 10;
  p.backend = backend_request::cupti;
  // Copies into the static input only when the input set changes, then the op itself.
  const auto copy_on_new_inputs = [&](cudaStream_t stream, int set) {
    if (set != last_set) {
      testkit::launch_fill(stream, static_input.data(), set, count);
      last_set = set;
    }
    testkit::launch_empty(stream);
  };
  const measurement_result r = measure(copy_on_new_inputs, p);
  ASSERT_EQ(r.work.rotation_added_kernels.size(), 1U);
  EXPECT_NE(r.work.rotation_added_kernels[0].find("fill_kernel"), std::string::npos);
  EXPECT_TRUE(has_warning_containing(r, "rotating the inputs adds work")) << warnings_of(r);
  EXPECT_TRUE(has_warning_containing(r, "input_sets=1")) << warnings_of(r);

  p.input_sets = 1; // nothing to compare: one set
  last_set = -1;
  const measurement_result same = measure(copy_on_new_inputs, p);
  EXPECT_TRUE(same.work.rotation_added_kernels.empty());
  EXPECT_FALSE(has_warning_containing(same, "rotating the inputs")) << warnings_of(same);
}

} // namespace
} // namespace kerntime::gpu_tests
