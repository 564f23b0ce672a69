// What the work did, judged from real CUPTI records (API, memcpy, kernel and external-correlation
// structs laid out in a buffer) decoded by the real decoder: synchronization inside the work,
// host gaps before iterations, and kernels that only rotated inputs run.

#include "attribution/work_behaviour.hpp"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "activity_buffer.hpp"
#include "one_trial.hpp"

namespace kerntime::detail {
namespace {

using testing::activity_buffer;

// One iteration as `(t * 2).sum().item()` runs it under CUPTI: the flush, two kernels, a copy to
// pageable host memory and the stream synchronize of .item(), each API call tagged.
void item_iteration(activity_buffer& b, std::uint64_t id, std::uint64_t t, std::uint32_t& corr) {
  b.flush_tag(id, corr);
  b.memset(t, t + 30'000, corr++);
  b.iteration_tag(id, corr);
  b.api(CUPTI_ACTIVITY_KIND_RUNTIME, corr, 11, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
  b.kernel("mul_kernel", t + 31'000, t + 33'000, corr++);
  b.iteration_tag(id, corr);
  b.api(CUPTI_ACTIVITY_KIND_RUNTIME, corr, 11, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
  b.kernel("reduce_kernel", t + 34'000, t + 37'000, corr++);
  b.iteration_tag(id, corr);
  b.api(CUPTI_ACTIVITY_KIND_RUNTIME, corr, 11, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020);
  b.memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, t + 38'000, t + 39'000, corr++);
  b.iteration_tag(id, corr);
  b.api(CUPTI_ACTIVITY_KIND_RUNTIME, corr, 11,
        CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020);
  b.iteration_tag(id, corr);
  b.api(CUPTI_ACTIVITY_KIND_DRIVER, corr++, 11, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize);
}

TEST(work_behaviour, a_stream_synchronize_in_every_iteration_is_named_by_its_runtime_call) {
  activity_buffer b;
  std::uint32_t corr = 1;
  for (std::uint64_t id = 1; id <= 4; ++id) {
    item_iteration(b, id, id * 100'000, corr);
  }
  const work_behaviour work = judge_work(b.decode(), one_trial(3));
  EXPECT_EQ(work.synchronizing_iterations, 3);
  EXPECT_EQ(work.synchronizing_calls, std::vector<std::string>{"cudaStreamSynchronize"});
  const auto warnings = warnings_about(work, 3);
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_EQ(warnings[0], "the work synchronizes with the host: cudaStreamSynchronize in every "
                         "iteration; times include host round trips (the GPU time of each kernel "
                         "in the breakdown is still exact)");
}

TEST(work_behaviour, a_synchronous_copy_to_the_host_waits_and_one_between_devices_does_not) {
  activity_buffer b;
  b.iteration_tag(2, 1);
  b.api(CUPTI_ACTIVITY_KIND_RUNTIME, 1, 11, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020);
  b.memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, 1000, 2000, 1);
  b.iteration_tag(3, 2);
  b.api(CUPTI_ACTIVITY_KIND_RUNTIME, 2, 11, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020);
  b.memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, 3000, 4000, 2);
  const auto waits = host_waits_by_iteration(b.decode());
  ASSERT_EQ(waits.size(), 1U);
  EXPECT_EQ(waits.begin()->first, 3U);
  EXPECT_EQ(waits.begin()->second, std::vector<std::string_view>{"cudaMemcpy"});
}

TEST(work_behaviour, driver_calls_are_named_when_no_runtime_call_was_seen) {
  activity_buffer b;
  b.iteration_tag(2, 1);
  b.api(CUPTI_ACTIVITY_KIND_DRIVER, 1, 11, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize);
  b.iteration_tag(3, 2);
  b.api(CUPTI_ACTIVITY_KIND_DRIVER, 2, 11, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
  b.kernel("k", 10, 20, 2);
  const work_behaviour work = judge_work(b.decode(), one_trial(2));
  EXPECT_EQ(work.synchronizing_iterations, 1);
  EXPECT_EQ(work.synchronizing_calls, std::vector<std::string>{"cuCtxSynchronize"});
  EXPECT_NE(warnings_about(work, 2)[0].find("cuCtxSynchronize in 1 of 2 iterations;"),
            std::string::npos);
}

TEST(work_behaviour, calls_outside_the_measured_iterations_are_not_the_works) {
  activity_buffer b;
  b.tag(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, 1, 1); // kerntime's own clock check
  b.api(CUPTI_ACTIVITY_KIND_RUNTIME, 1, 11, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020);
  b.flush_tag(2, 2);
  b.api(CUPTI_ACTIVITY_KIND_RUNTIME, 2, 11, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020);
  b.iteration_kernel(2, "k", 10, 20, 3);
  const work_behaviour work = judge_work(b.decode(), one_trial(1));
  EXPECT_EQ(work.synchronizing_iterations, 0);
  EXPECT_TRUE(warnings_about(work, 1).empty());
}

// `starts[i]`: when iteration i's kernel starts after its flush ends at flush_end[i].
activity_buffer iterations_after_flushes(const std::vector<std::uint64_t>& flush_end,
                                         const std::vector<std::uint64_t>& kernel_start) {
  activity_buffer b;
  std::uint32_t corr = 1;
  for (std::size_t i = 0; i < flush_end.size(); ++i) {
    const std::uint64_t id = i + 1;
    b.flush_tag(id, corr);
    b.memset(flush_end[i] - 30'000, flush_end[i], corr++);
    b.iteration_tag(id, corr);
    b.kernel("k", kernel_start[i], kernel_start[i] + 2'000, corr++);
  }
  return b;
}

TEST(work_behaviour, an_iteration_that_starts_long_after_its_flush_waited_for_the_host) {
  // Iteration ids 1..5 (1 discarded). Gaps after the flush: 800 ns, 1.2 µs, 40 µs, 5.0 µs, 7 µs.
  const activity_buffer b = iterations_after_flushes({100'000, 200'000, 300'000, 400'000, 500'000},
                                                     {100'800, 201'200, 340'000, 405'000, 507'000});
  const activity_log log = b.decode();
  const iteration_layout layout = one_trial(4);
  EXPECT_EQ(idle_before_iterations_ns(log, layout),
            (std::vector<double>{1'200, 40'000, 5'000, 7'000}));
  const work_behaviour work = judge_work(log, layout);
  EXPECT_EQ(work.judged_iterations, 4);
  EXPECT_EQ(work.host_gap_iterations, 2); // 5.0 µs is launch latency, not a gap
  EXPECT_DOUBLE_EQ(work.longest_host_gap_ns, 40'000);
  EXPECT_EQ(warnings_about(work, 4),
            std::vector<std::string>{
                "the GPU waited for the host before 2 of 4 iterations (idle up to 40.0 µs "
                "before the work started): the host launches the work more slowly than "
                "the GPU runs it, so times may include host launch gaps"});
}

// A CUDA graph of 16 kernels starts ~6 µs after the GPU is free, though its launch call returned
// long before (the iterations were queued behind the blocking kernel): device-side launch
// latency, not a host gap. The same gap with the launch call still running when the GPU went
// idle is the host's.
TEST(work_behaviour, a_gap_after_the_launch_call_returned_is_the_devices) {
  activity_buffer b = iterations_after_flushes({100'000, 200'000, 300'000, 400'000},
                                               {106'000, 206'000, 306'000, 406'000});
  // Iteration id i's kernel was launched under correlation id 2i (iterations_after_flushes).
  b.api(CUPTI_ACTIVITY_KIND_RUNTIME, 4, 1, 0, 10'000, 12'000);   // returned before: device's
  b.api(CUPTI_ACTIVITY_KIND_RUNTIME, 6, 1, 0, 250'000, 304'000); // still running: the host's
  // Iteration 4's launch has no API record: judged by the gap alone.
  const activity_log log = b.decode();
  EXPECT_EQ(idle_before_iterations_ns(log, one_trial(3)), (std::vector<double>{0, 6'000, 6'000}));
  const work_behaviour work = judge_work(log, one_trial(3));
  EXPECT_EQ(work.host_gap_iterations, 2);
}

TEST(work_behaviour, one_host_gap_in_two_hundred_iterations_is_counted_but_not_warned) {
  std::vector<std::uint64_t> flush_end;
  std::vector<std::uint64_t> start;
  for (std::uint64_t i = 0; i < 201; ++i) {
    flush_end.push_back(100'000 * (i + 1));
    start.push_back(flush_end.back() + (i == 50 ? 30'000 : 1'000));
  }
  const work_behaviour work =
      judge_work(iterations_after_flushes(flush_end, start).decode(), one_trial(200));
  EXPECT_EQ(work.host_gap_iterations, 1);
  EXPECT_EQ(work.judged_iterations, 200);
  EXPECT_TRUE(warnings_about(work, 200).empty()); // 0.5 %: not material
}

TEST(work_behaviour, without_a_flush_the_gap_is_measured_from_the_iteration_before) {
  activity_buffer b;
  b.iteration_kernel(1, "k", 1'000, 2'000, 1);
  b.iteration_kernel(2, "k", 2'500, 3'000, 2);
  b.iteration_kernel(3, "k", 23'000, 24'000, 3);
  EXPECT_EQ(idle_before_iterations_ns(b.decode(), one_trial(2)),
            (std::vector<double>{500, 20'000}));
}

TEST(work_behaviour, kernels_only_the_rotated_call_runs_are_named_once_in_order) {
  // torch.compile(mode="reduce-overhead") on new addresses: the graph copies its inputs into
  // static buffers before replaying; on the same inputs it replays alone.
  activity_buffer b;
  b.iteration_kernel(2, "triton_poi_fused_0", 1'000, 2'000, 1);
  b.iteration_kernel(3, "copy_kernel", 3'000, 3'500, 2);
  b.iteration_kernel(3, "copy_kernel", 3'600, 4'000, 3);
  b.iteration_kernel(3, "triton_poi_fused_0", 4'100, 5'000, 4);
  const activity_log log = b.decode();
  EXPECT_EQ(kernels_added_by_rotation(log, 2, 3), std::vector<std::string>{"copy_kernel"});
  EXPECT_TRUE(kernels_added_by_rotation(log, 3, 2).empty()); // fewer kernels add none
  work_behaviour work;
  work.queue_chunk_iterations = 50;
  work.rotation_added_kernels = kernels_added_by_rotation(log, 2, 3);
  EXPECT_EQ(warnings_about(work, 0),
            std::vector<std::string>{
                "rotating the inputs adds work: a call on rotated inputs ran copy_kernel beyond a "
                "call on the same inputs (a copy into static buffers, a re-capture or a "
                "re-tune); the times include it. Pass input_sets=1 (--input-sets 1) to time the "
                "call on the same inputs"});
}

TEST(work_behaviour, the_same_kernels_on_rotated_inputs_add_nothing) {
  activity_buffer b;
  b.iteration_kernel(2, "gemm", 1'000, 2'000, 1);
  b.iteration_kernel(3, "gemm", 3'000, 4'000, 2);
  EXPECT_TRUE(kernels_added_by_rotation(b.decode(), 2, 3).empty());
}

TEST(work_behaviour, launches_of_an_iteration_count_its_flush_and_work_records) {
  activity_buffer b;
  b.flush_tag(1, 1);
  b.memset(0, 10, 1);
  b.flush_tag(1, 2);
  b.kernel("l2_flush_read_back", 10, 20, 2);
  b.iteration_kernel(1, "k", 30, 40, 3);
  b.iteration_kernel(2, "k", 50, 60, 4);
  b.tag(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, 1, 5); // the blocking kernel: kerntime's own
  b.kernel("wait_for_release", 0, 5, 5);
  EXPECT_EQ(launches_of_iteration(b.decode(), 1), 3);
}

TEST(work_behaviour, event_timing_that_had_to_drop_the_blocking_kernel_says_so) {
  work_behaviour work; // no records judged, no blocking kernel at the end
  const auto warnings = warnings_about(work, 0);
  ASSERT_EQ(warnings.size(), 1U);
  EXPECT_NE(warnings[0].find("ran without the blocking kernel"), std::string::npos);
  work.queue_chunk_iterations = 50;
  EXPECT_TRUE(warnings_about(work, 0).empty());
}

} // namespace
} // namespace kerntime::detail
