#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "golden.hpp"
#include "render.hpp"
#include "report/detail/host_facts.hpp"

namespace kerntime::test {
namespace {

using nlohmann::json;

detail::host_facts fixed_host() {
  detail::host_facts host;
  host.num_cpus = 16;
  host.mhz_per_cpu = 3100;
  host.cpu_scaling_enabled = false;
  host.caches = {{"Data", 1, 49152, 2}, {"Unified", 2, 2097152, 2}};
  host.load_avg = {0.5, 0.25, 0.125};
  return host;
}

json render_fixed() {
  return json::parse(render(*detail::make_gbench_json_writer(fixed_host())));
}

TEST(GbenchJsonWriter, MatchesGolden) {
  expect_matches_golden(render(*detail::make_gbench_json_writer(fixed_host())),
                        "report.gbench.json");
}

// Every key Google Benchmark's tools/compare.py (report.py and util.py) reads.
TEST(GbenchJsonWriter, HasEveryKeyCompareReads) {
  const auto document = render_fixed();
  EXPECT_EQ(document.at("context").at("json_schema_version"), 1);
  for (const char* key : {"date", "host_name", "executable", "num_cpus", "mhz_per_cpu",
                          "cpu_scaling_enabled", "caches", "library_build_type"}) {
    EXPECT_TRUE(document.at("context").contains(key)) << key;
  }
  for (const auto& row : document.at("benchmarks")) {
    for (const char* key :
         {"name", "family_index", "per_family_instance_index", "run_name", "run_type",
          "repetitions", "threads", "iterations", "real_time", "cpu_time", "time_unit"}) {
      EXPECT_TRUE(row.contains(key)) << row.value("name", "?") << " lacks " << key;
    }
    if (row.at("run_type") == "aggregate") {
      EXPECT_TRUE(row.contains("aggregate_name"));
      EXPECT_EQ(row.at("aggregate_unit"), row.at("aggregate_name") == "cv" ? "percentage" : "time");
      EXPECT_EQ(row.at("name"), row.at("run_name").get<std::string>() + "_" +
                                    row.at("aggregate_name").get<std::string>());
    } else {
      EXPECT_TRUE(row.contains("repetition_index"));
      EXPECT_EQ(row.at("run_type"), "iteration");
    }
  }
}

TEST(GbenchJsonWriter, TrialsAreRepetitionsThenAggregates) {
  const auto rows = render_fixed().at("benchmarks");
  // gemm ok: 2 trials + 4 aggregates; failed: 1; skipped: 1; device_copy: 1 trial + 4;
  // copy_then_gemm: twice 2 trials + 4.
  ASSERT_EQ(rows.size(), 25u);
  EXPECT_EQ(rows[0].at("name"), "gemm_bf16/M=4096/N=4096");
  EXPECT_DOUBLE_EQ(rows[0].at("real_time").get<double>(), 175.0);
  EXPECT_DOUBLE_EQ(rows[1].at("real_time").get<double>(), 176.6005);
  EXPECT_EQ(rows[1].at("repetition_index"), 1);
  EXPECT_EQ(rows[1].at("iterations"), 3);
  EXPECT_EQ(rows[2].at("aggregate_name"), "mean");
  EXPECT_DOUBLE_EQ(rows[2].at("real_time").get<double>(), 175.80025);
  EXPECT_DOUBLE_EQ(rows[3].at("real_time").get<double>(), 175.80025); // median of two
  EXPECT_DOUBLE_EQ(rows[4].at("real_time").get<double>(), 1.13172);
  EXPECT_DOUBLE_EQ(rows[5].at("real_time").get<double>(), 0.0064377);
  EXPECT_TRUE(rows[6].at("error_occurred").get<bool>());
  EXPECT_EQ(rows[6].at("family_index"), 0);
  EXPECT_EQ(rows[6].at("per_family_instance_index"), 1);
  EXPECT_TRUE(rows[7].at("skipped").get<bool>());
  EXPECT_EQ(rows[8].at("family_index"), 1);
  // The timer, then the stopping rule and what it reached (this sample's ended on max_time).
  EXPECT_EQ(rows[8].at("label"),
            "backend=events; stop_at_ci ±0.5 %: 1 trial, stopped by max_time before the target "
            "(no 95 % interval of the median: it needs 6 trials); warm-up auto: 1000 iterations "
            "(not settled)");
}

TEST(GbenchJsonWriter, PublicWriterReadsThisHost) {
  const auto document = json::parse(render(*make_gbench_json_writer()));
  EXPECT_GT(document.at("context").at("num_cpus").get<int>(), 0);
  EXPECT_EQ(document.at("context").at("executable"), "kerntime");
}

} // namespace
} // namespace kerntime::test
