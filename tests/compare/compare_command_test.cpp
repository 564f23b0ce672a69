// `kerntime compare` run in-process: the gate's exit codes, the outputs, bad input.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/run_cli.hpp"
#include "kerntime/report.hpp"
#include "supervise/exit_codes.hpp"
#include "temp_folder.hpp"

namespace kerntime::detail {
namespace {

const std::string data = KERNTIME_COMPARE_DATA_DIR;

cli_outcome run(std::vector<std::string> args) {
  args.insert(args.begin(), "compare");
  return run_cli(benchmark_registry{}, std::move(args));
}

class compare_command : public ::testing::Test {
protected:
  // The second H200 run with every sample of `state` multiplied by `factor`, as a file.
  std::string slowed(const std::string& state, double factor) {
    result_set set = read_result_set(data + "/h200_run2.json");
    for (auto& r : set.runs) {
      if (r.state_name != state) {
        continue;
      }
      for (auto& trial : r.result->trials) {
        for (auto& s : trial.iterations) {
          s.span_ns *= factor;
          s.busy_ns *= factor;
        }
      }
    }
    auto path = (temp_.path() / "slowed.json").string();
    write_file_atomically(
        path, [&](std::ostream& file) { make_json_writer()->print(file, set.context, set.runs); });
    return path;
  }

  testkit::temp_folder temp_{"kerntime_compare_test"};
};

TEST_F(compare_command, unchanged_code_passes_the_gate) {
  const auto result = run({data + "/h200_run1.json", data + "/h200_run2.json"});
  EXPECT_EQ(result.exit_code, exit_ok) << result.err;
  EXPECT_NE(result.out.find("## kerntime compare: NVIDIA H200 vs NVIDIA H200"), std::string::npos);
  EXPECT_EQ(result.out.find("**slower**"), std::string::npos) << result.out;
}

TEST_F(compare_command, a_regression_fails_the_gate_and_is_written_as_json) {
  const auto json = (temp_.path() / "verdicts.json").string();
  const auto result = run({data + "/h200_run1.json", slowed("spin/duration_us=10", 1.05), "--json",
                           json, "--threshold", "2%"});
  EXPECT_EQ(result.exit_code, exit_regression);
  EXPECT_NE(result.err.find("got slower"), std::string::npos);
  std::stringstream text;
  text << std::ifstream(json).rdbuf();
  EXPECT_NE(text.str().find("\"verdict\": \"slower\""), std::string::npos);
  EXPECT_NE(text.str().find("\"regression\": true"), std::string::npos);
}

TEST_F(compare_command, junit_has_a_testcase_per_state_and_a_failure_per_regression_csv_a_row) {
  const auto junit = (temp_.path() / "compare.xml").string();
  const auto csv = (temp_.path() / "compare.csv").string();
  const auto result = run({data + "/h200_run1.json", slowed("spin/duration_us=10", 1.05), "--junit",
                           junit, "--csv", csv, "--quiet"});
  EXPECT_EQ(result.exit_code, exit_regression);
  EXPECT_EQ(result.out, "");
  std::stringstream xml;
  xml << std::ifstream(junit).rdbuf();
  const std::string text = xml.str();
  EXPECT_NE(text.find("tests=\"4\" failures=\"1\""), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n') > 0, true);
  const auto failure = text.find("<failure type=\"regression\"");
  ASSERT_NE(failure, std::string::npos);
  EXPECT_LT(text.rfind("name=\"spin/duration_us=10\"", failure), failure);
  std::stringstream rows;
  rows << std::ifstream(csv).rdbuf();
  const std::string table = rows.str();
  EXPECT_EQ(table.rfind("state,metric,base_ns", 0), 0U);
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 5); // the header and 4 states
  EXPECT_NE(table.find("spin/duration_us=10,span,"), std::string::npos);
  EXPECT_NE(table.find(",slower,"), std::string::npos);
}

TEST_F(compare_command, a_regression_below_a_wider_threshold_passes) {
  const auto result =
      run({data + "/h200_run1.json", slowed("spin/duration_us=10", 1.05), "--threshold", "0.1"});
  EXPECT_EQ(result.exit_code, exit_ok) << result.out;
}

TEST_F(compare_command, bad_input_exits_2_with_one_line) {
  std::ofstream(temp_.path() / "broken.json") << "{ not json";
  const std::vector<std::vector<std::string>> cases = {
      {data + "/h200_run1.json", (temp_.path() / "broken.json").string()},
      {data + "/h200_run1.json", data + "/missing.json"},
      {data + "/h200_run1.json"},
      {data + "/h200_run1.json", data + "/h200_run2.json", "--threshold", "5"},
      {data + "/h200_run1.json", data + "/h200_run2.json", "--metric", "mean"},
      {data + "/h200_run1.json", data + "/h200_run2.json", "--filter", "nothing_matches"},
  };
  for (const auto& args : cases) {
    const auto result = run(args);
    EXPECT_EQ(result.exit_code, exit_bad_input) << args.back() << ": " << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_EQ(result.out, "");
  }
}

TEST_F(compare_command, a_threshold_out_of_range_says_the_range) {
  for (const std::string threshold : {"200%", "-1", "0"}) {
    const auto result =
        run({data + "/h200_run1.json", data + "/h200_run2.json", "--threshold", threshold});
    EXPECT_EQ(result.exit_code, exit_bad_input) << threshold;
    EXPECT_NE(result.err.find("the band must be above 0 and below 100 %"), std::string::npos)
        << result.err;
  }
  EXPECT_NE(run({data + "/h200_run1.json", data + "/h200_run2.json", "--threshold", "much"})
                .err.find("is not a fraction or a percentage"),
            std::string::npos);
}

// A folder of runs often holds an earlier --json comparison or a calibration file too.
TEST_F(compare_command, a_folder_side_skips_json_that_is_not_a_result_set_and_says_so) {
  const auto folder = temp_.path() / "runs";
  std::filesystem::create_directory(folder);
  std::filesystem::copy_file(data + "/h200_run1.json", folder / "a_run1.json");
  std::filesystem::copy_file(data + "/h200_run2.json", folder / "b_run2.json");
  const auto verdicts = (temp_.path() / "verdicts.json").string();
  ASSERT_EQ(
      run({data + "/h200_run1.json", data + "/h200_run2.json", "--json", verdicts, "-q"}).exit_code,
      exit_ok);
  std::filesystem::copy_file(verdicts, folder / "c_verdicts.json");
  const auto result = run({"--base", folder.string(), "--new", data + "/h200_run1.json", "-q"});
  EXPECT_EQ(result.exit_code, exit_ok) << result.err;
  EXPECT_NE(result.err.find("kerntime: skipped " + (folder / "c_verdicts.json").string() +
                            " in the base folder: "),
            std::string::npos)
      << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  // A file named by the user is still refused.
  EXPECT_EQ(run({(folder / "c_verdicts.json").string(), data + "/h200_run1.json"}).exit_code,
            exit_bad_input);
}

TEST_F(compare_command, run_with_an_unreadable_baseline_stops_before_measuring) {
  bool measured = false;
  benchmark_registry registry;
  registry.add("b", [&](state&) { measured = true; });
  const auto result = run_cli(registry, {"run", "--baseline", data + "/missing.json"}, true);
  EXPECT_EQ(result.exit_code, exit_bad_input);
  EXPECT_FALSE(measured);
  EXPECT_NE(result.err.find("cannot read"), std::string::npos) << result.err;
}

} // namespace
} // namespace kerntime::detail

namespace kerntime::detail {
namespace {

// `report` renders again and, only with --gate, judges: a failed state or a regression against
// --baseline exits 1; without the flag the same files exit 0 (what the README says).
TEST_F(compare_command, report_gates_only_when_asked) {
  const auto slow = slowed("spin/duration_us=10", 1.05);
  const auto report = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "report");
    return run_cli(benchmark_registry{}, std::move(args));
  };
  EXPECT_EQ(report({slow, "--baseline", data + "/h200_run1.json", "-q"}).exit_code, exit_ok);
  const auto gated = report({slow, "--baseline", data + "/h200_run1.json", "-q", "--gate"});
  EXPECT_EQ(gated.exit_code, exit_regression);
  EXPECT_NE(gated.err.find("got slower than in"), std::string::npos) << gated.err;
  EXPECT_EQ(
      report({data + "/h200_run2.json", "--baseline", data + "/h200_run1.json", "-q", "--gate"})
          .exit_code,
      exit_ok);

  result_set set = read_result_set(data + "/h200_run2.json");
  set.runs.front().status = run_status::failed;
  set.runs.front().error = error_kind::benchmark_failed;
  set.runs.front().message = "CUDA error";
  set.runs.front().result.reset();
  const auto failed = (temp_.path() / "failed.json").string();
  write_file_atomically(
      failed, [&](std::ostream& file) { make_json_writer()->print(file, set.context, set.runs); });
  EXPECT_EQ(report({failed, "-q"}).exit_code, exit_ok);
  const auto failed_gated = report({failed, "-q", "--gate"});
  EXPECT_EQ(failed_gated.exit_code, exit_benchmark_failed);
  EXPECT_NE(failed_gated.err.find("1 of 4 states in"), std::string::npos) << failed_gated.err;
}

} // namespace
} // namespace kerntime::detail
