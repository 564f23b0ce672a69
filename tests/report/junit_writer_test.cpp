#include <gtest/gtest.h>

#include "golden.hpp"
#include "render.hpp"
#include "report/detail/text.hpp"

namespace kerntime::test {
namespace {

TEST(JunitWriter, MatchesGolden) {
  expect_matches_golden(render(*make_junit_writer()), "report.junit.xml");
}

TEST(JunitWriter, Xunit2MatchesGolden) {
  expect_matches_golden(render(*make_junit_writer(junit_family::xunit2)), "report.xunit2.xml");
}

// junit-10.xsd allows properties only on the testsuite (tests/report/CMakeLists.txt validates
// the golden against it): no testcase holds one, each state's are on the suite, named by state.
TEST(JunitWriter, Xunit2MovesEachStatesPropertiesToTheSuite) {
  const auto xml = render(*make_junit_writer(junit_family::xunit2));
  const auto first_testcase = xml.find("<testcase");
  ASSERT_NE(first_testcase, std::string::npos);
  EXPECT_EQ(xml.find("<properties>", first_testcase), std::string::npos);
  EXPECT_LT(xml.find(R"(<property name="gemm_bf16/M=4096/N=4096.latency_ms" value="0.175313"/>)"),
            first_testcase);
  EXPECT_EQ(xml.find("<testsuites name=\"kerntime\" tests=\"6\" failures=\"1\" errors=\"0\" "
                     "time="),
            xml.find("<testsuites")); // no "skipped" on <testsuites>: the schema has none
}

TEST(JunitWriter, AFailedStateCarriesTheTimeItRan) {
  for (const auto family : {junit_family::xunit1, junit_family::xunit2}) {
    const auto xml = render(*make_junit_writer(family));
    EXPECT_NE(xml.find(R"(name="gemm_bf16/M=8192/N=4096" time="0.375")"), std::string::npos)
        << to_string(family);
  }
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
  EXPECT_NE(xml.find(R"(tests="6" failures="1" errors="0" skipped="1")"), std::string::npos);
  EXPECT_NE(xml.find(R"(type="benchmark_failed")"), std::string::npos);
  EXPECT_NE(xml.find(R"(<skipped message="needs 3 GiB, device has 2, sorry"/>)"),
            std::string::npos);
}

} // namespace
} // namespace kerntime::test
