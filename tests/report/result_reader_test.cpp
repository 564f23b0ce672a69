// The kerntime JSON reader on numbers that do not fit the field they are read into: found by
// tests/fuzz (fuzz_result_set), where nlohmann's unchecked cast of 1e300 to an int was undefined
// behaviour. Each is refused with kerntime::invalid_argument naming the key. And files written
// before a rule changed: read by today's rule.

#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "render.hpp"

namespace kerntime::test {
namespace {

using nlohmann::json;

json written() {
  return json::parse(render(*make_json_writer()));
}

std::string refusal(const json& document) {
  try {
    static_cast<void>(parse_result_set(document.dump(), "edited.json"));
  } catch (const invalid_argument& e) {
    return e.what();
  }
  return "read without complaint";
}

TEST(ResultReader, AWarmupTooLargeForAnIntIsRefusedNamingTheKey) {
  auto document = written();
  document.at("runs").at(0).at("result").at("protocol").at("warmup") = 1e300;
  const auto message = refusal(document);
  EXPECT_NE(message.find("edited.json is not a kerntime result set"), std::string::npos) << message;
  EXPECT_NE(message.find("warmup 1e+300 is out of range"), std::string::npos) << message;
}

TEST(ResultReader, ANegativeByteCountIsRefusedRatherThanWrapped) {
  auto document = written();
  document.at("context").at("device").at("l2_bytes") = -1;
  EXPECT_NE(refusal(document).find("l2_bytes -1 is out of range"), std::string::npos);
}

TEST(ResultReader, AStreamIdAboveItsUnsignedIsRefused) {
  auto document = written();
  document.at("runs").at(0).at("result").at("trace").at("records").at(0).at(2) = 4294967296;
  EXPECT_NE(refusal(document).find("stream 4294967296 is out of range"), std::string::npos);
}

TEST(ResultReader, ASchemaVersionThatWouldWrapToOneIsRefused) {
  auto document = written();
  document.at("json_schema_version") = 4294967297;
  EXPECT_NE(refusal(document).find("its json_schema_version is 4294967297"), std::string::npos);
}

TEST(ResultReader, EveryVersionFromTheOldestReadsAndANewerOneIsRefusedNamingBoth) {
  auto document = written();
  document.at("json_schema_version") = json_schema_version + 1;
  EXPECT_NE(refusal(document).find(fmt::format("its json_schema_version is {}, this kerntime "
                                               "reads versions {} to {}",
                                               json_schema_version + 1, oldest_json_schema_version,
                                               json_schema_version)),
            std::string::npos)
      << refusal(document);
  document.at("json_schema_version") = oldest_json_schema_version;
  EXPECT_EQ(refusal(document), "read without complaint");
}

TEST(ResultReader, AnIntegerWrittenAsAFloatInRangeStillReads) {
  auto document = written();
  document.at("runs").at(0).at("result").at("protocol").at("trials") = 2.0;
  const result_set set = parse_result_set(document.dump(), "edited.json");
  EXPECT_EQ(set.runs[0].result->protocol_used.trials, 2);
}

// A file written before sm_clock_fraction flagged a trial on NVML's sw_power_cap alone. Read
// today, its trials are judged by the clock rule, so an old baseline and a new run agree.
TEST(ResultReader, AFileFromBeforeTheClockRuleIsJudgedByTheClock) {
  auto document = written();
  json& trials = document.at("runs").at(0).at("result").at("trials");
  for (json& trial : trials) {
    trial.at("telemetry").erase("sm_clock_fraction");
  }
  json& capped = trials.at(1).at("telemetry"); // 1975 of 1980 MHz, NVML said sw_power_cap
  capped.at("throttled") = true;
  capped.at("throttle_reason") = "NVML clock-event reasons: sw_power_cap, hw_slowdown";
  trials.at(0).at("telemetry").at("throttle_reason") = "on-GPU clock 1742 MHz < 90 % of 1980 MHz";

  const result_set set = parse_result_set(document.dump(), "old.json");
  const auto& read = set.runs[0].result->trials;
  EXPECT_FALSE(read[1].telemetry.throttled);
  EXPECT_EQ(read[1].telemetry.throttle_reason, "");
  EXPECT_EQ(read[1].telemetry.sm_clock_fraction, 1975.0 / 1980.0);
  EXPECT_TRUE(read[0].telemetry.throttled); // 1741.6 MHz: below 90 % by either rule
  EXPECT_EQ(read[0].telemetry.throttle_reason,
            "SM clock 1742 MHz measured on the GPU is 88.0 % of the maximum 1980 MHz "
            "(threshold 90 %)");
}

TEST(ResultReader, ATrialsClockFractionIsReadBackNotRecomputed) {
  auto document = written();
  json& telemetry = document.at("runs").at(0).at("result").at("trials").at(0).at("telemetry");
  EXPECT_DOUBLE_EQ(telemetry.at("sm_clock_fraction").get<double>(), 1741.6 / 1980.0);
  telemetry.at("sm_clock_fraction") = 0.5; // as written, even where it disagrees with the clock
  const result_set set = parse_result_set(document.dump(), "edited.json");
  EXPECT_EQ(set.runs[0].result->trials[0].telemetry.sm_clock_fraction, 0.5);
  EXPECT_TRUE(set.runs[0].result->trials[0].telemetry.throttled);
}

TEST(ResultReader, TheCuptiModeIsReadBackAndAFileWithoutItReadsAsSubscribed) {
  auto document = written();
  json& result = document.at("runs").at(0).at("result");
  ASSERT_EQ(result.at("timing_backend"), "cupti");
  EXPECT_EQ(result.at("cupti_mode"), "subscribed");
  result.at("cupti_mode") = "shared_with_idle_torch_profiler";
  EXPECT_EQ(parse_result_set(document.dump(), "edited.json").runs[0].result->cupti,
            cupti_mode::shared_with_idle_torch_profiler);
  result.erase("cupti_mode"); // written before the field existed
  EXPECT_EQ(parse_result_set(document.dump(), "old.json").runs[0].result->cupti,
            cupti_mode::subscribed);
  result.at("timing_backend") = "events";
  EXPECT_EQ(parse_result_set(document.dump(), "old.json").runs[0].result->cupti, cupti_mode::none);
}

TEST(ResultReader, PreparationsAndTheirSpreadAreReadBackAndAnOlderFileHadOne) {
  auto document = written();
  bool seen = false;
  for (json& run : document.at("runs")) {
    if (!run.at("result").is_null() && run.at("result").at("preparations") == 2) {
      seen = true;
      EXPECT_DOUBLE_EQ(run.at("result").at("preparation_spread").get<double>(), 0.0125);
    }
  }
  ASSERT_TRUE(seen) << "the sample runs hold a result of two preparations";
  const result_set set = parse_result_set(document.dump(), "written.json");
  int pooled = 0;
  for (const auto& run : set.runs) {
    if (run.result && run.result->preparations == 2) {
      ++pooled;
      EXPECT_EQ(run.result->preparation_spread, 0.0125);
    }
  }
  EXPECT_GE(pooled, 1);
  json& result = document.at("runs").at(0).at("result");
  result.erase("preparations"); // written before the fields existed
  result.erase("preparation_spread");
  const auto old = parse_result_set(document.dump(), "old.json");
  EXPECT_EQ(old.runs[0].result->preparations, 1);
  EXPECT_FALSE(old.runs[0].result->preparation_spread.has_value());
  result["preparations"] = 0;
  EXPECT_NE(refusal(document).find("\"preparations\" is 0"), std::string::npos)
      << refusal(document);
}

} // namespace
} // namespace kerntime::test
