#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "golden.hpp"
#include "render.hpp"

namespace kerntime::test {
namespace {

using nlohmann::json;

TEST(JsonWriter, MatchesGolden) {
  expect_matches_golden(render(*make_json_writer()), "report.json");
}

// What compare, merge and later reports read: every key the writer writes is read back, so the
// set re-rendered is the same text.
TEST(JsonWriter, ReadsBackToTheSameDocument) {
  const std::string written = render(*make_json_writer());
  const result_set set = parse_result_set(written, "sample.json");
  ASSERT_EQ(set.runs.size(), sample_runs().size());
  std::ostringstream again;
  make_json_writer()->print(again, set.context, set.runs);
  EXPECT_EQ(again.str(), written);
  EXPECT_EQ(set.runs[1].error, error_kind::benchmark_failed);
}

TEST(JsonWriter, TheStoppingRuleAndItsIntervalReadBack) {
  auto runs = sample_runs();
  auto& stopping = runs[0].result->stopping;
  stopping.median_interval = confidence_interval{174000, 177000, 0.96875};
  stopping.half_width = 0.0123;
  stopping.reason = stop_reason::interval_reached;
  runs[0].result->protocol_used.stop_at_ci = 1.5;
  std::ostringstream written;
  make_json_writer()->print(written, sample_context(), runs);
  const auto document = json::parse(written.str());
  const auto& json_stopping = document.at("runs").at(0).at("result").at("stopping");
  EXPECT_EQ(json_stopping.at("rule"), "stop_at_ci");
  EXPECT_EQ(json_stopping.at("stopped_because"), "interval_reached");
  EXPECT_EQ(json_stopping.at("median_interval").at("confidence").get<double>(), 0.96875);
  const result_set set = parse_result_set(written.str(), "stopping.json");
  const auto& read = set.runs[0].result->stopping;
  ASSERT_TRUE(read.median_interval.has_value());
  EXPECT_EQ(read.median_interval->high, 177000);
  EXPECT_EQ(read.half_width, 0.0123);
  EXPECT_EQ(read.reason, stop_reason::interval_reached);
  EXPECT_EQ(set.runs[0].result->protocol_used.stop_at_ci, 1.5);
}

TEST(JsonWriter, AFileFromBeforeTheStoppingRecordReadsAsTheFixedProtocol) {
  auto document = json::parse(render(*make_json_writer()));
  auto& result = document.at("runs").at(0).at("result");
  result.erase("stopping");
  for (const char* key : {"warmup_auto", "stop_at_ci", "max_trials", "max_time_s"}) {
    result.at("protocol").erase(key);
  }
  const result_set set = parse_result_set(document.dump(), "old.json");
  const auto& r = *set.runs[0].result;
  EXPECT_FALSE(r.protocol_used.stop_at_ci.has_value());
  EXPECT_EQ(r.stopping.reason, stop_reason::trial_count);
  EXPECT_EQ(r.stopping.trials, 2);
  EXPECT_EQ(r.stopping.warmup_iterations, r.protocol_used.warmup);
  EXPECT_FALSE(r.stopping.median_interval.has_value()); // two trials: too few for 95 %
}

TEST(JsonWriter, TheHostPhasesReadBackAndAFileWithoutThemReadsAsZero) {
  auto document = json::parse(render(*make_json_writer()));
  auto& result = document.at("runs").at(0).at("result");
  EXPECT_EQ(result.at("host_phases_seconds").at("trials").get<double>(), 0.1875);
  const host_phases read = parse_result_set(document.dump(), "new.json").runs[0].result->phases;
  EXPECT_EQ(read.prepare, 0.015625);
  EXPECT_EQ(read.trials, 0.1875);
  EXPECT_EQ(read.telemetry, 0.0078125);
  EXPECT_EQ(read.counter_pass, 0.0);

  result.erase("host_phases_seconds");
  const host_phases old = parse_result_set(document.dump(), "old.json").runs[0].result->phases;
  for (const auto& [name, field] : host_phase_names) {
    EXPECT_EQ(old.*field, 0.0) << name;
  }
}

TEST(JsonWriter, RoundTripsEveryValue) {
  const auto document = json::parse(render(*make_json_writer()));
  const auto runs = sample_runs();
  EXPECT_EQ(document.at("json_schema_version"), json_schema_version);
  EXPECT_EQ(document.at("context").at("device").at("name"), "NVIDIA H200");
  ASSERT_EQ(document.at("runs").size(), runs.size());

  const auto& ok = document.at("runs").at(0);
  const auto& expected = *runs[0].result;
  EXPECT_EQ(ok.at("state_name"), "gemm_bf16/M=4096/N=4096");
  EXPECT_EQ(ok.at("axes").at(1).at("name"), "N");
  EXPECT_EQ(ok.at("status"), "ok");
  EXPECT_TRUE(ok.at("error_kind").is_null());
  EXPECT_EQ(ok.at("flops_per_iteration").get<double>(), *runs[0].flops);
  const auto& result = ok.at("result");
  EXPECT_EQ(result.at("latency_ns").get<double>(), expected.latency_ns);
  EXPECT_EQ(result.at("timing_backend"), "cupti");
  EXPECT_EQ(result.at("protocol").at("trials"), 2);
  EXPECT_EQ(result.at("statistics").at("headline").at("p90_ns").get<double>(), expected.stats.p90);
  EXPECT_EQ(result.at("trial_statistics").at("cv_of_means").get<double>(),
            expected.trials_summary.cv_of_means);
  EXPECT_EQ(result.at("trials").at(1).at("busy_ns").at(2).get<double>(),
            expected.trials[1].iterations[2].busy_ns);
  EXPECT_EQ(result.at("trials").at(0).at("telemetry").at("after").at("power_w").get<double>(),
            412.25);
  EXPECT_TRUE(result.at("trials").at(0).at("telemetry").at("throttled").get<bool>());
  // Full names, byte for byte: no shortening or escaping survives the parse.
  EXPECT_EQ(result.at("kernels").at(0).at("name"), tricky_kernel_name());
  EXPECT_EQ(result.at("kernels").at(1).at("name"), long_template_name());
  // The trace names each kernel once; a record is [kernel, iteration, stream, start_ns, end_ns].
  const auto& trace = result.at("trace");
  const auto& third = trace.at("records").at(2);
  EXPECT_EQ(third.at(2), 13);
  EXPECT_EQ(trace.at("kernels").at(third.at(0).get<std::size_t>()).at("name"),
            expected.trace[2].name);
  EXPECT_EQ(third.at(3).get<double>(), expected.trace[2].start_ns);
  EXPECT_EQ(result.at("warnings").at(0), expected.warnings[0]);

  const auto& failed = document.at("runs").at(1);
  EXPECT_EQ(failed.at("status"), "failed");
  EXPECT_EQ(failed.at("error_kind"), "benchmark_failed");
  EXPECT_EQ(failed.at("message"), runs[1].message);
  EXPECT_TRUE(failed.at("result").is_null());
  EXPECT_EQ(document.at("runs").at(2).at("status"), "skipped");
  EXPECT_EQ(document.at("runs").at(3).at("result").at("device_telemetry").at("unavailable_reason"),
            "libnvidia-ml.so.1 not found");
}

TEST(JsonWriter, ToJsonIsTheResultObjectOfTheSchema) {
  const auto document = json::parse(render(*make_json_writer()));
  const auto runs = sample_runs();
  EXPECT_EQ(json::parse(to_json(*runs[0].result)), document.at("runs").at(0).at("result"));
}

TEST(JsonWriter, InvalidUtf8BecomesReplacementCharacterInsteadOfThrowing) {
  auto runs = sample_runs();
  runs[0].result->kernels[0].name = "bad\xFF";
  const auto parsed = json::parse(to_json(*runs[0].result));
  EXPECT_EQ(parsed.at("kernels").at(0).at("name"), "bad\xEF\xBF\xBD");
}

} // namespace
} // namespace kerntime::test
