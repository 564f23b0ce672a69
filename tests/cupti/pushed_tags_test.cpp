// The record of the ids kerntime pushed: runs kept as ranges, each kind on its own.

#include "cupti/pushed_tags.hpp"

#include <gtest/gtest.h>

namespace kerntime::detail {
namespace {

TEST(pushed_tags, knows_every_id_pushed_and_no_other) {
  pushed_tags pushed;
  for (std::uint64_t id = 1; id <= 250; ++id) {
    pushed.add(tag_kind::iteration, id);
    pushed.add(tag_kind::flush, id);
  }
  pushed.add(tag_kind::iteration, 400); // a gap, then another run
  pushed.add(tag_kind::iteration, 401);
  pushed.add(tag_kind::internal, 7);
  EXPECT_TRUE(pushed.contains(tag_kind::iteration, 1));
  EXPECT_TRUE(pushed.contains(tag_kind::iteration, 250));
  EXPECT_FALSE(pushed.contains(tag_kind::iteration, 251));
  EXPECT_FALSE(pushed.contains(tag_kind::iteration, 399));
  EXPECT_TRUE(pushed.contains(tag_kind::iteration, 401));
  EXPECT_FALSE(pushed.contains(tag_kind::iteration, 0));
  EXPECT_FALSE(pushed.contains(tag_kind::flush, 400)); // kinds do not mix
  EXPECT_TRUE(pushed.contains(tag_kind::internal, 7));
  EXPECT_FALSE(pushed.contains(tag_kind::internal, 1));
}

TEST(pushed_tags, a_repeated_id_changes_nothing) {
  pushed_tags pushed;
  pushed.add(tag_kind::flush, 5);
  pushed.add(tag_kind::flush, 5);
  pushed.add(tag_kind::flush, 6);
  EXPECT_TRUE(pushed.contains(tag_kind::flush, 6));
  EXPECT_FALSE(pushed.contains(tag_kind::flush, 4));
  EXPECT_FALSE(pushed.contains(tag_kind::flush, 7));
}

} // namespace
} // namespace kerntime::detail
