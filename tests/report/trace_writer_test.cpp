#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "golden.hpp"
#include "render.hpp"

namespace kerntime::test {
namespace {

using nlohmann::json;

TEST(TraceWriter, MatchesGolden) {
  expect_matches_golden(render(*make_trace_writer()), "report.trace.json");
}

TEST(TraceWriter, CompleteEventsInMicrosecondsPerStream) {
  const auto events = json::parse(render(*make_trace_writer())).at("traceEvents");
  std::vector<json> kernels;
  std::vector<json> iterations;
  for (const auto& e : events) {
    EXPECT_EQ(e.at("pid"), 0) << "only the ok CUPTI state has records";
    if (e.at("ph") == "X" && e.at("cat") == "iteration") {
      iterations.push_back(e);
    } else if (e.at("ph") == "X") {
      kernels.push_back(e);
    }
  }
  ASSERT_EQ(kernels.size(), 4u);
  EXPECT_EQ(kernels[1].at("name"), long_template_name());
  EXPECT_DOUBLE_EQ(kernels[1].at("ts").get<double>(), 1.3);
  EXPECT_DOUBLE_EQ(kernels[1].at("dur").get<double>(), 168.0);
  EXPECT_EQ(kernels[2].at("tid"), 13);
  EXPECT_EQ(kernels[2].at("args").at("iteration"), 1);
  ASSERT_EQ(iterations.size(), 2u);
  EXPECT_DOUBLE_EQ(iterations[1].at("ts").get<double>(), 175.0);
  EXPECT_DOUBLE_EQ(iterations[1].at("dur").get<double>(), 169.3);
  EXPECT_EQ(iterations[0].at("tid"), 14); // the lane after the largest stream id
}

} // namespace
} // namespace kerntime::test
