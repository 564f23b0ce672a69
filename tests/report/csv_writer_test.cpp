#include <gtest/gtest.h>

#include <vector>

#include "golden.hpp"
#include "render.hpp"

namespace kerntime::test {
namespace {

// A strict RFC 4180 reader, so the test fails if a quote or line break leaks out of a field.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> records(1, std::vector<std::string>(1));
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    auto& field = records.back().back();
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      EXPECT_TRUE(field.empty()) << "quote inside an unquoted field";
      quoted = true;
    } else if (c == ',') {
      records.back().emplace_back();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i;
      records.emplace_back(1);
    } else {
      EXPECT_NE(c, '\n') << "bare line feed outside quotes";
      field += c;
    }
  }
  EXPECT_FALSE(quoted);
  records.pop_back(); // after the final CRLF
  return records;
}

TEST(CsvWriter, MatchesGolden) {
  expect_matches_golden(render(*make_csv_writer()), "report.csv");
}

TEST(CsvWriter, ParsesBackToOneRowPerStateWithEveryValue) {
  const auto records = parse_csv(render(*make_csv_writer()));
  const auto runs = sample_runs();
  ASSERT_EQ(records.size(), runs.size() + 1);
  const auto& header = records[0];
  for (const auto& record : records) {
    EXPECT_EQ(record.size(), header.size());
  }
  auto column = [&](const char* name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  EXPECT_EQ(header[2], "M");
  EXPECT_EQ(header[4], "bytes");
  EXPECT_EQ(records[1][column("latency_ms")], "0.175313");
  EXPECT_EQ(records[1][column("p90_ms")], "0.177313");
  EXPECT_EQ(records[1][column("clock_events")], "sw_power_cap;hw_slowdown");
  EXPECT_EQ(records[1][column("throttled_trials")], "1");
  EXPECT_EQ(records[1][column("sm_clock_min_mhz")], "1755");
  EXPECT_EQ(records[2][column("message")], runs[1].message);
  EXPECT_EQ(records[2][column("latency_ms")], "");
  EXPECT_EQ(records[3][column("message")], runs[2].message);
  EXPECT_EQ(records[4][column("M")], "");
  EXPECT_EQ(records[4][column("l2")], "cold");
  EXPECT_EQ(records[4][column("timing_backend")], "events");
}

} // namespace
} // namespace kerntime::test
