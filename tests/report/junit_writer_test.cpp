#include <gtest/gtest.h>

#include "golden.hpp"
#include "render.hpp"
#include "report/detail/text.hpp"

namespace kerntime::test {
namespace {

TEST(JunitWriter, MatchesGolden) {
  expect_matches_golden(render(*make_junit_writer()), "report.junit.xml");
}

TEST(JunitWriter, KernelNamesAreWholePropertiesNeverJoined) {
  const auto xml = render(*make_junit_writer());
  // The larger kernel is first; its full 2 KB name is one escaped attribute value.
  const auto first =
      R"(<property name="kernel.1" value=")" + detail::xml_escape(long_template_name()) + "\"/>";
  EXPECT_NE(xml.find(first), std::string::npos);
  const auto second =
      R"(<property name="kernel.2" value=")" + detail::xml_escape(tricky_kernel_name()) + "\"/>";
  EXPECT_NE(xml.find(second), std::string::npos);
  EXPECT_EQ(xml.find('\x01'), std::string::npos);
  EXPECT_EQ(xml.find("<a&b>"), std::string::npos);
}

TEST(JunitWriter, FailuresAndSkipsAreMarked) {
  const auto xml = render(*make_junit_writer());
  EXPECT_NE(xml.find(R"(tests="4" failures="1" errors="0" skipped="1")"), std::string::npos);
  EXPECT_NE(xml.find(R"(type="benchmark_failed")"), std::string::npos);
  EXPECT_NE(xml.find(R"(<skipped message="needs 3 GiB, device has 2, sorry"/>)"),
            std::string::npos);
}

} // namespace
} // namespace kerntime::test
