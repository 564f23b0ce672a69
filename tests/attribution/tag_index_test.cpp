// The tag index fed tags laid out as real CUPTI external-correlation records and decoded by the
// real decoder: the table for the usual narrow range of correlation ids, the sorted list for ids
// spread wide, and a call with two different tags.

#include "attribution/tag_index.hpp"

#include <gtest/gtest.h>

#include "activity_buffer.hpp"

namespace kerntime::detail {
namespace {

using testing::activity_buffer;

// Iteration tags for ids 1..count on correlation ids first, first + step, ...
activity_buffer tags_every(std::uint32_t first, std::uint32_t step, int count) {
  activity_buffer b;
  for (int i = 0; i < count; ++i) {
    b.iteration_tag(static_cast<std::uint64_t>(i) + 1,
                    first + static_cast<std::uint32_t>(i) * step);
  }
  return b;
}

void expect_finds_every_tag(std::uint32_t first, std::uint32_t step, int count) {
  const activity_log log = tags_every(first, step, count).decode();
  const tag_index tags(log);
  for (int i = 0; i < count; ++i) {
    const std::uint32_t correlation = first + static_cast<std::uint32_t>(i) * step;
    ASSERT_EQ(tags.iteration_of(correlation), static_cast<std::uint64_t>(i) + 1) << correlation;
    if (step > 1) {
      EXPECT_EQ(tags.find(correlation + 1), nullptr) << "between two tagged calls";
    }
  }
  EXPECT_EQ(tags.find(first - 1), nullptr) << "below the lowest";
  EXPECT_EQ(tags.find(first + static_cast<std::uint32_t>(count) * step), nullptr) << "above";
  EXPECT_FALSE(tags.conflicting_correlation());
}

TEST(tag_index, finds_tags_on_a_narrow_range_of_correlation_ids) {
  expect_finds_every_tag(5'000, 3, 1'000);
}

TEST(tag_index, finds_tags_on_ids_spread_far_apart) {
  // 200 tags 1,000,000 ids apart: a table would need 2e8 slots, the sorted list 200 entries.
  expect_finds_every_tag(17, 1'000'000, 200);
}

TEST(tag_index, a_flush_tag_is_found_but_is_no_iteration) {
  activity_buffer b;
  b.flush_tag(4, 40);
  b.iteration_tag(4, 41);
  const activity_log log = b.decode();
  const tag_index tags(log);
  ASSERT_NE(tags.find(40), nullptr);
  EXPECT_EQ(tags.find(40)->kind, tag_kind::flush);
  EXPECT_FALSE(tags.iteration_of(40));
  EXPECT_EQ(tags.iteration_of(41), 4U);
}

TEST(tag_index, a_call_with_two_different_tags_is_named_and_the_first_tag_wins) {
  for (const std::uint32_t spread : {1U, 50'000'000U}) { // the table and the sorted list
    activity_buffer b;
    b.iteration_tag(1, 10);
    b.iteration_tag(2, 10 + spread);
    b.iteration_tag(3, 10 + spread); // the same call tagged again, differently
    b.iteration_tag(1, 10);          // the same tag twice is no conflict
    const activity_log log = b.decode();
    const tag_index tags(log);
    EXPECT_EQ(tags.conflicting_correlation(), 10 + spread) << spread;
    EXPECT_EQ(tags.iteration_of(10 + spread), 2U) << spread;
  }
}

TEST(tag_index, an_empty_log_finds_nothing) {
  const activity_log log;
  const tag_index tags(log);
  EXPECT_EQ(tags.find(0), nullptr);
  EXPECT_EQ(tags.find(123), nullptr);
  EXPECT_FALSE(tags.conflicting_correlation());
}

} // namespace
} // namespace kerntime::detail
