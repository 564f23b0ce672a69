// The shard partition: every state in exactly one shard, shards balanced by state count, the
// slice a function of the plan alone; and the text INDEX/COUNT, with its errors.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kerntime/errors.hpp"
#include "supervise/shard.hpp"

namespace kerntime::detail {
namespace {

std::string error_of(std::string_view text) {
  try {
    (void)parse_shard(text);
  } catch (const invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(shard, parses_index_and_count) {
  EXPECT_EQ(parse_shard("0/1"), (shard_spec{0, 1}));
  EXPECT_EQ(parse_shard("7/8"), (shard_spec{7, 8}));
}

TEST(shard, refuses_what_is_not_a_shard_naming_the_form) {
  EXPECT_NE(error_of("3").find("there is no '/'"), std::string::npos);
  EXPECT_NE(error_of("a/8").find("whole numbers"), std::string::npos);
  EXPECT_NE(error_of("1/8x").find("whole numbers"), std::string::npos);
  EXPECT_NE(error_of("8/8").find("INDEX counts from 0"), std::string::npos);
  EXPECT_NE(error_of("-1/8").find("INDEX counts from 0"), std::string::npos);
  EXPECT_NE(error_of("0/0").find("COUNT must be between 1"), std::string::npos);
  EXPECT_NE(error_of("0/99999999999").find("whole numbers"), std::string::npos);
  EXPECT_NE(error_of("8/8").find("e.g. --shard 0/8"), std::string::npos);
}

TEST(shard, every_state_is_in_exactly_one_shard_and_shards_differ_by_at_most_one) {
  for (std::size_t states : {0u, 1u, 7u, 8u, 9u, 26u, 1000u}) {
    for (int count : {1, 2, 3, 8, 13, 40}) {
      std::vector<int> owners(states, 0);
      std::size_t smallest = states;
      std::size_t largest = 0;
      for (int index = 0; index < count; ++index) {
        const auto slice = shard_indices(states, {index, count});
        EXPECT_EQ(slice, shard_indices(states, {index, count})); // deterministic
        EXPECT_TRUE(std::is_sorted(slice.begin(), slice.end()));
        for (const auto i : slice) {
          ASSERT_LT(i, states);
          ++owners[i];
        }
        smallest = std::min(smallest, slice.size());
        largest = std::max(largest, slice.size());
      }
      for (std::size_t i = 0; i < states; ++i) {
        EXPECT_EQ(owners[i], 1) << "state " << i << " of " << states << ", " << count << " shards";
      }
      EXPECT_LE(largest - smallest, 1u) << states << " states, " << count << " shards";
    }
  }
}

TEST(shard, a_shard_takes_every_count_th_state) {
  EXPECT_EQ(shard_indices(10, {1, 3}), (std::vector<std::size_t>{1, 4, 7}));
}

} // namespace
} // namespace kerntime::detail
