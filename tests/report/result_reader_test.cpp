// The kerntime JSON reader on numbers that do not fit the field they are read into: found by
// tests/fuzz (fuzz_result_set), where nlohmann's unchecked cast of 1e300 to an int was undefined
// behaviour. Each is refused with kerntime::invalid_argument naming the key.

#include <gtest/gtest.h>

#include <string>

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
  document.at("runs").at(0).at("result").at("trace").at(0).at("stream") = 4294967296;
  EXPECT_NE(refusal(document).find("stream 4294967296 is out of range"), std::string::npos);
}

TEST(ResultReader, ASchemaVersionThatWouldWrapToOneIsRefused) {
  auto document = written();
  document.at("json_schema_version") = 4294967297;
  EXPECT_NE(refusal(document).find("its json_schema_version is 4294967297"), std::string::npos);
}

TEST(ResultReader, AnIntegerWrittenAsAFloatInRangeStillReads) {
  auto document = written();
  document.at("runs").at(0).at("result").at("protocol").at("trials") = 2.0;
  const result_set set = parse_result_set(document.dump(), "edited.json");
  EXPECT_EQ(set.runs[0].result->protocol_used.trials, 2);
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

} // namespace
} // namespace kerntime::test
