// The chunk planning that keeps the launch queue from filling behind the blocking kernel, with
// the numbers of the cases that stalled before (docs/queue.md).

#include "measure/queue_plan.hpp"

#include <gtest/gtest.h>

namespace kerntime::detail {
namespace {

TEST(queue_plan, a_trial_that_fits_the_queue_goes_in_four_chunks_so_host_and_gpu_overlap) {
  // 50 repeats of a single kernel (flush + kernel = 2 launches each) would fit in one chunk; four
  // let the host queue the next chunk while the GPU runs this one.
  EXPECT_EQ(plan_queue(50, 1024, 2).chunk_iterations, 13);
  EXPECT_EQ(plan_queue(4, 1024, 2).chunk_iterations, 1);
  EXPECT_EQ(plan_queue(1, 1024, 2).chunk_iterations, 1);
}

TEST(queue_plan, torch_topk_at_fifty_repeats_is_split_into_chunks_that_fit) {
  // 22 GPU records per iteration plus the flush's 2: 50 × 24 = 1,200 launches overflowed ~1,000.
  const queue_plan plan = plan_queue(200, 1024, 24);
  EXPECT_EQ(plan.chunk_iterations, 21); // 512 / 24, below a quarter of 200
  EXPECT_LE(plan.chunk_iterations * 24, 1024 / queue_share_denominator);
  EXPECT_EQ(plan_queue(50, 1024, 24).chunk_iterations, 13); // a quarter of 50 fits
}

TEST(queue_plan, two_thousand_tiny_kernels_are_queued_in_chunks) {
  EXPECT_EQ(plan_queue(2000, 1024, 3).chunk_iterations, 170);
}

TEST(queue_plan, an_iteration_larger_than_the_queue_still_gets_a_blocking_kernel_of_its_own) {
  EXPECT_EQ(plan_queue(50, 1024, 5000).chunk_iterations, 1);
}

TEST(queue_plan, without_a_measured_queue_the_whole_trial_is_one_chunk) {
  EXPECT_EQ(plan_queue(2000, std::nullopt, 3).chunk_iterations, 2000);
  EXPECT_EQ(plan_queue(2000, 1024, 0).chunk_iterations, 2000);
}

TEST(queue_plan, a_stall_shrinks_the_chunk_to_three_quarters_of_what_was_queued) {
  const queue_plan plan = plan_after_stall(plan_queue(2000, std::nullopt, 0), 333);
  EXPECT_EQ(plan.chunk_iterations, 249);
  EXPECT_EQ(plan.stalls, 1);
}

TEST(queue_plan, a_stall_before_the_first_iteration_returned_drops_the_blocking_kernel) {
  // The work waits for the GPU (.item(), a synchronize): the host cannot release the queue.
  const queue_plan plan = plan_after_stall(plan_queue(50, 1024, 3), 0);
  EXPECT_EQ(plan.chunk_iterations, 0);
}

TEST(queue_plan, repeated_stalls_end_with_no_blocking_kernel) {
  queue_plan plan = plan_queue(50, 1024, 3);
  for (int stall = 1; stall < max_queue_stalls; ++stall) {
    plan = plan_after_stall(plan, 40);
    EXPECT_GT(plan.chunk_iterations, 0);
  }
  plan = plan_after_stall(plan, 40);
  EXPECT_EQ(plan.chunk_iterations, 0);
  EXPECT_EQ(plan.stalls, max_queue_stalls);
}

} // namespace
} // namespace kerntime::detail
