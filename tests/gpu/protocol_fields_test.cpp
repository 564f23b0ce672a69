// Every field of the protocol reaches the GPU as written: the number of samples, the calls to
// the work, the rotation of input sets, the flush size, the headline metric, the stream.

#include <kerntime/measure.hpp>

#include <chrono>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "gpu_test.hpp"
#include "spin_kernel.hpp"

namespace kerntime::gpu_tests {
namespace {

using namespace std::chrono_literals;

protocol unusual_protocol() {
  return protocol{.warmup = 3,
                  .trials = 4,
                  .repeats = 7,
                  .flush_bytes = std::size_t{32} << 20,
                  .input_sets = 5,
                  .backend = backend_request::cupti};
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
  const std::size_t measured =
      static_cast<std::size_t>(p.trials) * static_cast<std::size_t>(p.repeats);
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

// The phases the result names, in the order they ran, cover the wall time between them: each is
// a lap of one clock, so only the steps between laps (microseconds) are outside them.
void expect_phases_cover_the_wall_time(const measurement_result& r) {
  const host_phases& ph = r.phases;
  for (const auto& [name, field] : host_phase_names) {
    EXPECT_GE(ph.*field, 0.0) << name;
    std::printf("  %-12s %8.3f ms\n", std::string(name).c_str(), ph.*field * 1e3);
  }
  const double covered =
      ph.prepare + ph.warmup + ph.attach + ph.first_calls + ph.trials + ph.detach + ph.summarise;
  std::printf("  covered %.3f of %.3f ms\n", covered * 1e3, r.wall_seconds * 1e3);
  EXPECT_LE(covered, r.wall_seconds);
  EXPECT_GT(covered, 0.98 * r.wall_seconds);
  EXPECT_LE(ph.telemetry, ph.trials);
  EXPECT_LE(ph.counter_pass, ph.detach);
}

TEST_F(protocol_fields, the_host_phases_cover_the_wall_time_and_the_trials_hold_the_gpu_time) {
  protocol p;
  p.backend = backend_request::cupti;
  const measurement_result r =
      measure([](cudaStream_t stream, int) { testkit::launch_spin(stream, 20us); }, p);
  ASSERT_EQ(r.backend, timing_backend::cupti);
  expect_phases_cover_the_wall_time(r);
  EXPECT_GT(r.phases.attach, 0.0);
  EXPECT_GT(r.phases.first_calls, 0.0);
  EXPECT_GT(r.phases.telemetry, 0.0);
  EXPECT_EQ(r.phases.counter_pass, 0.0);
  // The trials ran every measured iteration: at least their GPU time, 250 x (flush + 20 us).
  const double iterations = static_cast<double>(p.trials * p.repeats);
  EXPECT_GT(r.phases.trials, iterations * (20e-6 + r.flush_median_ns * 1e-9));

  p.backend = backend_request::events;
  const measurement_result events =
      measure([](cudaStream_t stream, int) { testkit::launch_spin(stream, 20us); }, p);
  expect_phases_cover_the_wall_time(events);
  EXPECT_EQ(events.phases.attach, 0.0);
  EXPECT_EQ(events.phases.first_calls, 0.0);
  EXPECT_EQ(events.phases.detach, 0.0);
  EXPECT_GT(events.phases.trials, iterations * 20e-6);
}

} // namespace
} // namespace kerntime::gpu_tests
