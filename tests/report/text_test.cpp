#include <gtest/gtest.h>

#include "report/detail/text.hpp"
#include "report/detail/units.hpp"

namespace kerntime::detail {
namespace {

TEST(Text, InvalidUtf8IsReplacedNotDropped) {
  EXPECT_EQ(valid_utf8("a\xFF"
                       "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(valid_utf8("\xE6\xA0\xB8"), "\xE6\xA0\xB8");         // 核 stays
  EXPECT_EQ(valid_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD"); // overlong '/'
  EXPECT_EQ(valid_utf8("\xE6\xA0"), "\xEF\xBF\xBD\xEF\xBF\xBD"); // truncated
}

TEST(Text, ShortenMiddleCountsCodePointsNotBytes) {
  EXPECT_EQ(shorten_middle("abcdef", 6), "abcdef");
  EXPECT_EQ(shorten_middle("abcdefghij", 7), "abcd\xE2\x80\xA6ij");
  // Six three-byte characters shortened to five code points never cuts a character in half.
  EXPECT_EQ(
      shorten_middle("\xE6\xA0\xB8\xE5\x87\xBD\xE6\x95\xB0\xE6\xA0\xB8\xE5\x87\xBD\xE6\x95\xB0", 5),
      "\xE6\xA0\xB8\xE5\x87\xBD\xE2\x80\xA6\xE5\x87\xBD\xE6\x95\xB0");
}

TEST(Text, MarkdownCodeSpanSurvivesPipesBackticksAndNewlines) {
  EXPECT_EQ(markdown_code_span("f<a|b>", 96), "`f<a\\|b>`");
  EXPECT_EQ(markdown_code_span("a`b``c", 96), "```a`b``c```");
  EXPECT_EQ(markdown_code_span("`x", 96), "`` `x ``");
  EXPECT_EQ(markdown_code_span("a\nb\tc", 96), "`a b c`");
}

TEST(Text, MarkdownTextEscapesMarkup) {
  EXPECT_EQ(markdown_text("a|b <T> *p* `c` [l]\\\nnext"),
            "a\\|b \\<T\\> \\*p\\* \\`c\\` \\[l\\]\\\\ next");
}

TEST(Text, XmlEscapeHandlesMarkupQuotesAndForbiddenControls) {
  EXPECT_EQ(xml_escape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
  EXPECT_EQ(xml_escape("a\tb\nc\rd"), "a&#9;b&#10;c&#13;d");
  EXPECT_EQ(xml_escape(std::string("a\x01\x1F", 3) + std::string(1, '\0')),
            "a\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(xml_escape("\xEF\xBF\xBF"), "\xEF\xBF\xBD"); // U+FFFF is not an XML character
}

TEST(Text, CsvFieldFollowsRfc4180) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field(" padded"), "\" padded\"");
  EXPECT_EQ(csv_field(""), "");
}

TEST(Units, HumanDurationSwitchesToMillisecondsAtOneMillisecond) {
  EXPECT_EQ(human_duration(580), "0.580 \xC2\xB5s");
  EXPECT_EQ(human_duration(175312.5), "175.312 \xC2\xB5s");
  EXPECT_EQ(human_duration(999999), "999.999 \xC2\xB5s");
  EXPECT_EQ(human_duration(1e6), "1.000 ms");
  EXPECT_EQ(human_duration(12345678), "12.346 ms");
  EXPECT_EQ(fixed_ms(175312.4), "0.175312");
  EXPECT_EQ(percent(0.0068), "0.68%");
}

TEST(text, long_kernel_names_keep_their_function_name) {
  const std::string onesweep =
      "void cub::CUB_300001_SM_900::detail::radix_sort::DeviceRadixSortOnesweepKernel<cub::"
      "CUB_300001_SM_900::detail::radix::policy_hub<unsigned int, cub::NullType, unsigned long>::"
      "Policy900, false, unsigned int, cub::NullType, unsigned long, int, int, "
      "cub::detail::identity_decomposer_t>(int*, int*, unsigned long*, unsigned long const*, "
      "unsigned int*, unsigned int const*, cub::NullType*, cub::NullType const*, int, int, int, "
      "cub::detail::identity_decomposer_t)";
  EXPECT_EQ(shorten_kernel_name(onesweep, 96),
            "void cub::CUB_300001_SM_900::detail::radix_sort::DeviceRadixSortOnesweepKernel"
            "<\xE2\x80\xA6>(\xE2\x80\xA6)");
  EXPECT_EQ(shorten_kernel_name("kerntime::(anonymous namespace)::spin<int>(unsigned long)", 48),
            "kerntime::(anonymous namespace)::spin<int>(\xE2\x80\xA6)");
  EXPECT_EQ(shorten_kernel_name("short<int>(int)", 96), "short<int>(int)");
}

} // namespace
} // namespace kerntime::detail
