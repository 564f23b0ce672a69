// Attribution fed real CUPTI records laid out in a buffer and decoded by the real decoder.

#include "attribution/attribution.hpp"

#include <gtest/gtest.h>

#include <string>

#include "activity_buffer.hpp"
#include "kerntime/errors.hpp"
#include "one_trial.hpp"

namespace kerntime::detail {
namespace {

using testing::activity_buffer;

std::string message_of(const activity_buffer& buffer, const iteration_layout& layout) {
  try {
    (void)attribute(buffer.decode(), layout);
  } catch (const measurement_invalid& e) {
    return e.what();
  }
  return "no error";
}

TEST(attribution, flush_is_excluded_by_its_tag_not_by_its_name) {
  activity_buffer b;
  // The flush: a memset tagged CUSTOM1, plus a fill kernel tagged CUSTOM1 (e.g. torch's zero_()).
  b.flush_tag(2, 20);
  b.memset(1000, 58000, 20);
  b.flush_tag(2, 21);
  b.kernel("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>>", 58000,
           60000, 21);
  b.iteration_kernel(2, "my_kernel", 60100, 70100, 22);
  const timed_trials a = attribute(b.decode(), one_trial(1));
  ASSERT_EQ(a.trials.size(), 1U);
  EXPECT_DOUBLE_EQ(a.trials[0].iterations[0].span_ns, 10000);
  EXPECT_DOUBLE_EQ(a.trials[0].iterations[0].busy_ns, 10000);
  EXPECT_DOUBLE_EQ(a.flush_median_ns, 59000); // memset start .. fill end, never in a sample
  ASSERT_EQ(a.kernels.size(), 1U);
  EXPECT_EQ(a.kernels[0].name, "my_kernel");
}

TEST(attribution, the_flush_time_is_the_median_over_measured_iterations_only) {
  activity_buffer b;
  const std::uint64_t flush_ns[] = {900000, 30, 50, 40}; // id 1 is the discarded iteration
  std::uint32_t correlation = 1;
  std::uint64_t t = 1000;
  for (std::uint64_t id = 1; id <= 4; ++id) {
    b.flush_tag(id, correlation);
    b.memset(t, t + flush_ns[id - 1], correlation++);
    t += flush_ns[id - 1];
    b.iteration_tag(id, correlation);
    b.kernel("k", t, t + 10, correlation++);
    t += 10;
  }
  const timed_trials a = attribute(b.decode(), one_trial(3));
  EXPECT_DOUBLE_EQ(a.flush_median_ns, 40);
}

TEST(attribution, a_user_kernel_named_like_a_fill_and_a_user_memset_are_counted) {
  activity_buffer b;
  b.flush_tag(2, 20);
  b.memset(0, 57000, 20);
  b.iteration_tag(2, 21);
  b.memset(60000, 61000, 21); // the user's own cudaMemsetAsync
  b.iteration_tag(2, 22);
  b.kernel("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>>", 61000,
           64000, 22);
  const timed_trials a = attribute(b.decode(), one_trial(1));
  EXPECT_DOUBLE_EQ(a.trials[0].iterations[0].busy_ns, 4000);
  EXPECT_DOUBLE_EQ(a.trials[0].iterations[0].span_ns, 4000);
  ASSERT_EQ(a.kernels.size(), 2U);
  EXPECT_EQ(a.kernels[0].kind, activity_kind::kernel);
  EXPECT_DOUBLE_EQ(a.kernels[0].mean_ns, 3000);
  EXPECT_EQ(a.kernels[1].kind, activity_kind::memset);
  EXPECT_DOUBLE_EQ(a.kernels[1].mean_ns, 1000);
}

TEST(attribution, span_and_busy_differ_for_overlapping_streams) {
  activity_buffer b;
  b.iteration_tag(2, 30);
  b.kernel("left", 100, 200, 30, /*stream=*/13);
  b.iteration_tag(2, 31);
  b.kernel("right", 150, 260, 31, /*stream=*/14);
  const timed_trials a = attribute(b.decode(), one_trial(1));
  EXPECT_DOUBLE_EQ(a.trials[0].iterations[0].span_ns, 160); // 100 .. 260
  EXPECT_DOUBLE_EQ(a.trials[0].iterations[0].busy_ns, 210); // 100 + 110
}

TEST(attribution, graph_nodes_share_the_graph_launch_correlation_and_are_all_counted) {
  activity_buffer b;
  b.iteration_tag(2, 40); // one cudaGraphLaunch
  b.kernel("node_a", 1000, 1100, 40);
  b.kernel("node_b", 1100, 1300, 40);
  b.kernel("node_a", 1300, 1400, 40);
  b.memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, 1400, 1500, 40);
  const timed_trials a = attribute(b.decode(), one_trial(1));
  EXPECT_DOUBLE_EQ(a.trials[0].iterations[0].span_ns, 500);
  ASSERT_EQ(a.kernels.size(), 3U);
  EXPECT_EQ(a.kernels[0].name, "node_a"); // 200 ns: the largest first
  EXPECT_DOUBLE_EQ(a.kernels[0].calls_per_iteration, 2);
  EXPECT_EQ(a.kernels[2].name, "[memcpy DtoD]");
}

TEST(attribution, untagged_work_is_an_error_naming_the_kernel_and_its_thread) {
  activity_buffer b;
  b.iteration_kernel(2, "mine", 100, 200, 50);
  b.api(CUPTI_ACTIVITY_KIND_RUNTIME, 51, 777);
  b.kernel("from_another_thread", 120, 220, 51);
  const std::string message = message_of(b, one_trial(1));
  EXPECT_NE(message.find("untagged"), std::string::npos) << message;
  EXPECT_NE(message.find("from_another_thread"), std::string::npos) << message;
  EXPECT_NE(message.find("thread 777"), std::string::npos) << message;
}

TEST(attribution, dropped_records_invalidate_the_measurement) {
  activity_buffer b;
  b.iteration_kernel(2, "k", 100, 200, 50);
  activity_log log = b.decode();
  log.dropped_records = 2;
  EXPECT_THROW((void)attribute(log, one_trial(1)), measurement_invalid);
}

TEST(attribution, zero_timestamps_invalidate_the_measurement) {
  activity_buffer b;
  b.iteration_kernel(2, "faulted", 0, 0, 50);
  EXPECT_NE(message_of(b, one_trial(1)).find("zero timestamps"), std::string::npos);
}

TEST(attribution, an_end_before_the_start_invalidates_the_measurement) {
  activity_buffer b;
  b.iteration_kernel(2, "inverted", 500, 400, 50);
  EXPECT_NE(message_of(b, one_trial(1)).find("end before the start"), std::string::npos);
}

TEST(attribution, an_iteration_without_gpu_work_is_an_error_never_a_zero) {
  activity_buffer b;
  b.iteration_kernel(2, "k", 100, 200, 60);
  // iteration id 3 launched nothing
  const std::string message = message_of(b, one_trial(2));
  EXPECT_NE(message.find("iteration 2 of trial 1 produced no GPU record"), std::string::npos)
      << message;
}

TEST(attribution, a_kernel_set_mismatch_is_reported) {
  activity_buffer b;
  b.iteration_kernel(2, "k", 100, 200, 70);
  b.iteration_kernel(3, "k", 300, 400, 71);
  b.iteration_kernel(3, "extra", 400, 450, 72);
  const timed_trials a = attribute(b.decode(), one_trial(2));
  ASSERT_EQ(a.warnings.size(), 1U);
  EXPECT_NE(a.warnings[0].find("differs between iterations"), std::string::npos);
  EXPECT_NE(a.warnings[0].find("iteration 2 of trial 1"), std::string::npos);
  // "extra" ran in one of two iterations.
  ASSERT_EQ(a.kernels.size(), 2U);
  EXPECT_DOUBLE_EQ(a.kernels[1].calls_per_iteration, 0.5);
  EXPECT_DOUBLE_EQ(a.kernels[1].median_ns, 25);
}

TEST(attribution, discarded_iterations_are_skipped_and_unknown_ids_rejected) {
  activity_buffer b;
  b.iteration_tag(1, 80); // the discarded first iteration
  b.kernel("k", 10, 9000, 80);
  b.iteration_kernel(2, "k", 10000, 10100, 81);
  const timed_trials a = attribute(b.decode(), one_trial(1));
  EXPECT_DOUBLE_EQ(a.trials[0].iterations[0].span_ns, 100);

  b.iteration_kernel(99, "k", 20000, 20100, 82);
  EXPECT_NE(message_of(b, one_trial(1)).find("never launched"), std::string::npos);
}

TEST(attribution, internal_work_is_not_counted) {
  activity_buffer b;
  b.tag(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, 1, 90);
  b.kernel("kerntime_clock_check", 0, 16000, 90);
  b.iteration_kernel(2, "k", 20000, 20100, 91);
  const timed_trials a = attribute(b.decode(), one_trial(1));
  EXPECT_EQ(a.kernels.size(), 1U);
  EXPECT_DOUBLE_EQ(a.trials[0].iterations[0].busy_ns, 100);
}

TEST(attribution, breakdown_statistics_over_trials_and_iterations) {
  // Two trials of two iterations: kernel "a" takes 100, 200, 300, 400 ns; "b" 50 ns twice per
  // iteration.
  activity_buffer b;
  iteration_layout layout;
  layout.trial_first_ids = {2, 10};
  layout.repeats = 2;
  const std::uint64_t ids[] = {2, 3, 10, 11};
  std::uint32_t correlation = 100;
  std::uint64_t t = 1000;
  for (int i = 0; i < 4; ++i) {
    b.iteration_tag(ids[i], correlation);
    b.kernel("a", t, t + 100 * static_cast<std::uint64_t>(i + 1), correlation++);
    t += 1000;
    for (int j = 0; j < 2; ++j) {
      b.iteration_tag(ids[i], correlation);
      b.kernel("b", t, t + 50, correlation++);
      t += 100;
    }
  }
  const timed_trials a = attribute(b.decode(), layout);
  ASSERT_EQ(a.trials.size(), 2U);
  ASSERT_EQ(a.trials[1].iterations.size(), 2U);
  EXPECT_DOUBLE_EQ(a.trials[1].iterations[1].busy_ns, 400 + 100);
  ASSERT_EQ(a.kernels.size(), 2U);
  EXPECT_EQ(a.kernels[0].name, "a");
  EXPECT_DOUBLE_EQ(a.kernels[0].mean_ns, 250);
  EXPECT_DOUBLE_EQ(a.kernels[0].median_ns, 250);
  EXPECT_DOUBLE_EQ(a.kernels[0].calls_per_iteration, 1);
  EXPECT_DOUBLE_EQ(a.kernels[1].calls_per_iteration, 2);
  EXPECT_DOUBLE_EQ(a.kernels[1].mean_ns, 100);
  EXPECT_DOUBLE_EQ(a.kernels[0].share, 250.0 / 350.0);
  EXPECT_DOUBLE_EQ(a.kernels[0].share + a.kernels[1].share, 1.0);
  // The trace holds the first trial only, relative to its first record.
  ASSERT_EQ(a.trace.size(), 6U);
  EXPECT_DOUBLE_EQ(a.trace.front().start_ns, 0);
  EXPECT_EQ(a.trace.back().iteration, 1);
}

} // namespace
} // namespace kerntime::detail
