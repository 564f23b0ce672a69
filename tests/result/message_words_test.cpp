// The small words of messages: "1 state" and "2 states", never "1 states"; "an int", never "a int".

#include <gtest/gtest.h>

#include "result/message_words.hpp"

namespace kerntime::detail {
namespace {

TEST(message_words, one_thing_is_singular_and_any_other_count_is_plural) {
  EXPECT_EQ(counted(1, "state"), "1 state");
  EXPECT_EQ(counted(0, "state"), "0 states");
  EXPECT_EQ(counted(2, "result"), "2 results");
  EXPECT_EQ(counted(1000, "trial"), "1000 trials");
}

TEST(message_words, a_noun_with_its_own_plural_uses_it) {
  EXPECT_EQ(counted(1, "pass", "passes"), "1 pass");
  EXPECT_EQ(counted(3, "pass", "passes"), "3 passes");
  EXPECT_EQ(noun_for(2, "series", "series"), "series");
}

TEST(message_words, the_noun_alone_follows_the_count) {
  EXPECT_EQ(noun_for(1, "trial"), "trial");
  EXPECT_EQ(noun_for(5, "trial"), "trials");
}

TEST(message_words, a_word_starting_with_a_vowel_takes_an) {
  EXPECT_EQ(with_article("int"), "an int");
  EXPECT_EQ(with_article("float"), "a float");
  EXPECT_EQ(with_article("string or type"), "a string or type");
  EXPECT_EQ(with_article("Integer"), "an Integer");
}

} // namespace
} // namespace kerntime::detail
