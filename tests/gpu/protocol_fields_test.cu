// Every field of the protocol reaches the GPU as written: the number of samples, the calls to
// the work, the rotation of input sets, the flush size, the headline metric, the stream.

#include <kerntime/measure.hpp>

#include <chrono>
#include <cstdio>
#include <set>
#include <vector>

#include "cuda_check.hpp"
#include "gpu_test.hpp"
#include "spin_kernel.hpp"

namespace kerntime::gpu_tests {
namespace {

using namespace std::chrono_literals;

protocol unusual_protocol() {
  protocol p;
  p.warmup = 3;
  p.trials = 4;
  p.repeats = 7;
  p.input_sets = 5;
  p.backend = backend_request::cupti;
  p.flush_bytes = std::size_t{32} << 20;
  return p;
}

class protocol_fields : public gpu_test {};

TEST_F(protocol_fields, trials_repeats_warmup_and_input_sets_shape_the_run) {
  const protocol p = unusual_protocol();
  std::vector<int> input_sets_seen;
  const measurement_result r = measure(
      [&](cudaStream_t stream, int set) {
        input_sets_seen.push_back(set);
        testkit::launch_spin(stream, 2us);
      },
      p);

  ASSERT_EQ(r.backend, timing_backend::cupti);
  ASSERT_EQ(r.trials.size(), static_cast<std::size_t>(p.trials));
  for (const trial_result& trial : r.trials) {
    EXPECT_EQ(trial.iterations.size(), static_cast<std::size_t>(p.repeats));
  }
  const std::size_t measured = static_cast<std::size_t>(p.trials * p.repeats);
  EXPECT_EQ(r.stats.count, measured);
  EXPECT_EQ(r.span.count, measured);
  EXPECT_EQ(r.busy.count, measured);
  EXPECT_EQ(r.trials_summary.means.size(), static_cast<std::size_t>(p.trials));

  // warmup + the measured iterations + the calls the engine runs after attaching CUPTI and never
  // counts: the first (it pays CUPTI's set-up), then, with several input sets, one more on the
  // same inputs and one on the next set (together they show whether rotation adds kernels).
  const std::size_t calls = input_sets_seen.size();
  const std::size_t discarded = 3;
  EXPECT_EQ(calls, static_cast<std::size_t>(p.warmup) + measured + discarded);
  std::printf("calls to the work: %zu = warmup %d + measured %zu + %zu discarded\n", calls,
              p.warmup, measured, calls - static_cast<std::size_t>(p.warmup) - measured);
  RecordProperty("calls", static_cast<int>(calls));

  // The rotation runs on through warmup, the discarded calls and the trials: 0, 1, ...,
  // input_sets - 1, 0, 1, ... Only the same-inputs call repeats its predecessor's set, on purpose.
  const std::size_t same_inputs_call = static_cast<std::size_t>(p.warmup) + 1;
  const std::set<int> distinct(input_sets_seen.begin(), input_sets_seen.end());
  EXPECT_EQ(distinct.size(), static_cast<std::size_t>(p.input_sets));
  for (std::size_t i = 0; i < input_sets_seen.size(); ++i) {
    ASSERT_GE(input_sets_seen[i], 0);
    ASSERT_LT(input_sets_seen[i], p.input_sets);
    if (i == same_inputs_call) {
      EXPECT_EQ(input_sets_seen[i], input_sets_seen[i - 1]) << "call " << i << " should repeat";
    } else if (i > 0) {
      EXPECT_EQ(input_sets_seen[i], (input_sets_seen[i - 1] + 1) % p.input_sets)
          << "call " << i << " broke the input-set cycle";
    }
  }
}

TEST_F(protocol_fields, the_protocol_is_returned_and_the_flush_size_is_the_one_asked_for) {
  const protocol p = unusual_protocol();
  const measurement_result r =
      measure([](cudaStream_t stream, int) { testkit::launch_spin(stream, 2us); }, p);
  EXPECT_EQ(r.flush_bytes, p.flush_bytes);
  EXPECT_EQ(r.protocol_used.warmup, p.warmup);
  EXPECT_EQ(r.protocol_used.trials, p.trials);
  EXPECT_EQ(r.protocol_used.repeats, p.repeats);
  EXPECT_EQ(r.protocol_used.input_sets, p.input_sets);
  EXPECT_EQ(r.protocol_used.flush_bytes, p.flush_bytes);
  EXPECT_GT(r.wall_seconds, 0.0);
}

TEST_F(protocol_fields, the_default_flush_is_four_times_the_l2) {
  int device = 0;
  KT_CUDA_CHECK(cudaGetDevice(&device));
  int l2_bytes = 0;
  KT_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  protocol p = unusual_protocol();
  p.flush_bytes = 0;
  const measurement_result r =
      measure([](cudaStream_t stream, int) { testkit::launch_spin(stream, 2us); }, p);
  EXPECT_EQ(r.flush_bytes, 4 * static_cast<std::size_t>(l2_bytes));
  EXPECT_EQ(r.device.l2_bytes, static_cast<std::size_t>(l2_bytes));

  p.flush_l2 = false;
  const measurement_result unflushed =
      measure([](cudaStream_t stream, int) { testkit::launch_spin(stream, 2us); }, p);
  EXPECT_EQ(unflushed.flush_bytes, 0u);
}

TEST_F(protocol_fields, the_headline_is_the_median_of_the_chosen_metric) {
  protocol p = unusual_protocol();
  const work_function work = [](cudaStream_t stream, int) {
    testkit::launch_spin(stream, 3us);
    testkit::launch_spin(stream, 2us);
  };
  p.metric = headline_metric::span;
  const measurement_result by_span = measure(work, p);
  EXPECT_DOUBLE_EQ(by_span.latency_ns, by_span.span.median);
  EXPECT_DOUBLE_EQ(by_span.stats.median, by_span.span.median);
  p.metric = headline_metric::busy;
  const measurement_result by_busy = measure(work, p);
  EXPECT_DOUBLE_EQ(by_busy.latency_ns, by_busy.busy.median);
  EXPECT_DOUBLE_EQ(by_busy.stats.median, by_busy.busy.median);
  // Two serial kernels: the span also holds the gap between them.
  EXPECT_GE(by_span.span.median, by_span.busy.median);
}

TEST_F(protocol_fields, the_work_runs_on_the_callers_stream_or_on_a_stream_of_kerntimes_own) {
  cuda_stream mine;
  std::set<cudaStream_t> seen;
  const work_function work = [&](cudaStream_t stream, int) {
    seen.insert(stream);
    testkit::launch_spin(stream, 2us);
  };
  static_cast<void>(measure(work, unusual_protocol(), mine.get()));
  EXPECT_EQ(seen, std::set<cudaStream_t>{mine.get()});

  seen.clear();
  static_cast<void>(measure(work, unusual_protocol()));
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_NE(*seen.begin(), nullptr) << "kerntime creates its own stream when given none";
}

} // namespace
} // namespace kerntime::gpu_tests
