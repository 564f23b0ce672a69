// The real kerntime command, run in-process on a registry of CPU-only benchmarks.

#include "cli/command_line.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/exit_codes.hpp"
#include "cli/run_cli.hpp"
#include "temp_folder.hpp"

namespace kerntime::detail {
namespace {

namespace fs = std::filesystem;

using outcome = cli_outcome;

class command_line : public ::testing::Test {
protected:
  command_line() {
    registry_.add("alpha", [](state& s) { s.skip("alpha " + std::to_string(s.get_int("N"))); })
        .add_int_axis("N", {1, 2})
        .add_string_axis("mode", {"x", "y"});
    registry_.add("beta", [](state& s) { s.skip("beta"); })
        .add_int_power_of_two_axis("bytes", 10, 12, 2)
        .add_float_axis("f", {0.5});
  }

  outcome run(std::vector<std::string> args, bool device_ok = false, bool terminal = false) {
    return run_cli(registry_, std::move(args), device_ok, terminal);
  }

  // A bad-input outcome: exit 2, nothing on stdout, exactly one line on stderr holding `what`.
  void expect_bad_input(const std::vector<std::string>& args, const std::string& what) {
    const auto result = run(args, true);
    EXPECT_EQ(result.exit_code, exit_bad_input) << result.err;
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_EQ(result.err.rfind("kerntime: error: ", 0), 0u) << result.err;
    EXPECT_NE(result.err.find(what), std::string::npos) << result.err;
  }

  benchmark_registry registry_;
  testkit::temp_folder temp_{"kerntime_cli_test"};
  const fs::path& folder_ = temp_.path();
};

TEST_F(command_line, help_works_without_a_gpu) {
  const auto result = run({"--help"});
  EXPECT_EQ(result.exit_code, exit_ok);
  EXPECT_NE(result.out.find("run"), std::string::npos);
  EXPECT_NE(result.out.find("list"), std::string::npos);
  const auto run_help = run({"run", "--help"});
  EXPECT_EQ(run_help.exit_code, exit_ok);
  EXPECT_NE(run_help.out.find("--gbench-json"), std::string::npos);
  EXPECT_NE(run_help.out.find("--filter"), std::string::npos);
}

TEST_F(command_line, list_shows_benchmarks_axes_and_states) {
  const auto result = run({"list"});
  EXPECT_EQ(result.exit_code, exit_ok) << result.err;
  EXPECT_EQ(result.out, "alpha\n"
                        "  axis N (int): 1, 2\n"
                        "  axis mode (string): x, y\n"
                        "  state alpha/N=1/mode=x\n"
                        "  state alpha/N=1/mode=y\n"
                        "  state alpha/N=2/mode=x\n"
                        "  state alpha/N=2/mode=y\n"
                        "beta\n"
                        "  axis bytes (int, powers of two): 2^10 = 1024, 2^12 = 4096\n"
                        "  axis f (float): 0.5\n"
                        "  state beta/bytes=1024/f=0.5\n"
                        "  state beta/bytes=4096/f=0.5\n"
                        "2 benchmarks, 6 states\n");
  EXPECT_EQ(result.err, "");
}

TEST_F(command_line, list_applies_filter_and_axis_overrides) {
  const auto result = run({"list", "--filter", "mode=y", "-a", "N[pow2]=[3:4]"});
  EXPECT_EQ(result.exit_code, exit_ok) << result.err;
  EXPECT_EQ(result.out, "alpha\n"
                        "  axis N (int, powers of two): 2^3 = 8, 2^4 = 16\n"
                        "  axis mode (string): x, y\n"
                        "  state alpha/N=8/mode=y\n"
                        "  state alpha/N=16/mode=y\n"
                        "1 benchmarks, 2 states\n");
}

TEST_F(command_line, a_command_is_required) {
  const auto result = run({});
  EXPECT_EQ(result.exit_code, exit_bad_input);
  EXPECT_NE(result.err.find("a command is required; run kerntime run"), std::string::npos);
}

TEST_F(command_line, unknown_flag) {
  expect_bad_input({"run", "--bogus"}, "--bogus");
}

TEST_F(command_line, non_numeric_count) {
  expect_bad_input({"run", "--trials", "many"}, "many");
}

TEST_F(command_line, malformed_axis_spec) {
  expect_bad_input({"run", "-a", "N=[1,2"}, "malformed axis spec '-a N=[1,2': missing ']'");
  expect_bad_input({"list", "-a", "N"}, "missing '='");
}

TEST_F(command_line, axis_value_that_does_not_fit) {
  expect_bad_input({"run", "-a", "N=big"}, "'big' is not an integer");
}

TEST_F(command_line, unknown_axis) {
  expect_bad_input({"run", "-a", "Q=[1,2]"}, "unknown axis 'Q'");
}

TEST_F(command_line, axis_given_twice) {
  expect_bad_input({"run", "-a", "N=1", "-a", "N=2"}, "axis 'N' is overridden twice");
}

TEST_F(command_line, invalid_regex) {
  expect_bad_input({"run", "--filter", "alpha("}, "invalid --filter regex 'alpha('");
}

TEST_F(command_line, filter_matching_nothing) {
  expect_bad_input({"run", "--filter", "gamma"}, "no benchmark state matches --filter 'gamma'");
}

TEST_F(command_line, zero_and_negative_counts) {
  expect_bad_input({"run", "--trials", "0"}, "--trials must be at least 1 (got 0)");
  expect_bad_input({"run", "--repeat=-3"}, "--repeat must be at least 1 (got -3)");
  expect_bad_input({"run", "--warmup=-1"}, "--warmup must be at least 0 (got -1)");
  expect_bad_input({"run", "--input-sets", "0"}, "--input-sets must be at least 1 (got 0)");
  expect_bad_input({"run", "--flush-bytes", "0"}, "--flush-bytes must be at least 1 (got 0)");
  expect_bad_input({"run", "--flush-bytes", "1024", "--no-flush"}, "contradict");
}

TEST_F(command_line, warmup_and_stopping_rule_options) {
  expect_bad_input({"run", "--warmup", "often"},
                   "--warmup takes a count of iterations or auto (got \"often\")");
  expect_bad_input({"run", "--warmup", ""}, "--warmup takes a count");
  expect_bad_input({"run", "--warmup", "10x"}, "--warmup takes a count");
  expect_bad_input({"run", "--stop-at-ci", "0"}, "--stop-at-ci is a percentage in (0, 100)");
  expect_bad_input({"run", "--stop-at-ci", "half"}, "half");
  expect_bad_input({"run", "--max-trials", "50"},
                   "--max-trials bounds the stopping rule and needs --stop-at-ci");
  expect_bad_input({"run", "--max-time", "5"}, "--max-time bounds the stopping rule");
  expect_bad_input({"run", "--stop-at-ci", "1", "--trials", "9", "--max-trials", "8"},
                   "--max-trials (8) is below --trials (9)");
  expect_bad_input({"run", "--stop-at-ci", "1", "--max-time", "0"},
                   "--max-time must be a positive number of seconds (got 0)");
  // Valid settings get past every check: the run then stops only for the missing device.
  const auto result = run(
      {"run", "--warmup", "auto", "--stop-at-ci", "0.5", "--max-trials", "20", "--max-time", "3"});
  EXPECT_NE(result.exit_code, exit_bad_input) << result.err;
}

TEST_F(command_line, throttle_options) {
  expect_bad_input({"run", "--throttle-threshold", "1.5"},
                   "--throttle-threshold must be a fraction in (0, 1] (got 1.5)");
  expect_bad_input({"run", "--throttle-threshold", "0"}, "--throttle-threshold must be");
  expect_bad_input({"run", "--discard-throttled", "--no-telemetry"}, "contradict");
}

TEST_F(command_line, unknown_backend_and_metric) {
  expect_bad_input({"run", "--backend", "nsys"}, "--backend nsys is not a timer");
  expect_bad_input({"run", "--metric", "mean"}, "--metric mean is not a metric");
}

TEST_F(command_line, unwritable_output_paths) {
  expect_bad_input({"run", "--json", (folder_ / "missing" / "out.json").string()},
                   "does not exist; create it");
  expect_bad_input({"run", "--csv", folder_.string()}, "is a folder");
  std::ofstream(folder_ / "plain_file") << "x";
  expect_bad_input({"run", "--junit", (folder_ / "plain_file" / "out.xml").string()},
                   "is not a folder");
  const auto same = (folder_ / "out").string();
  expect_bad_input({"run", "--json", same, "--csv", same}, "--json and --csv both write");
}

TEST_F(command_line, bad_input_writes_no_file) {
  const auto json = folder_ / "out.json";
  const auto csv = folder_ / "out.csv";
  expect_bad_input({"run", "--json", json.string(), "--csv", csv.string(), "--trials", "0"},
                   "--trials");
  expect_bad_input({"run", "--json", json.string(), "--filter", "nothing"}, "no benchmark");
  expect_bad_input({"run", "--json", json.string(), "--junit", (folder_ / "no" / "x").string()},
                   "does not exist");
  EXPECT_TRUE(fs::is_empty(folder_));
}

TEST_F(command_line, run_without_a_gpu_says_so) {
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) {
    GTEST_SKIP() << "this machine has a CUDA device; the no-device path cannot be exercised";
  }
  const auto json = folder_ / "out.json";
  const auto result = run({"run", "--json", json.string()});
  EXPECT_EQ(result.exit_code, exit_no_device);
  EXPECT_EQ(result.err.rfind("kerntime: no CUDA device found: ", 0), 0u) << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_EQ(result.out, "");
  EXPECT_FALSE(fs::exists(json));
  // `list` does not need a device.
  EXPECT_EQ(run({"list"}).exit_code, exit_ok);
}

TEST_F(command_line, bad_input_is_reported_before_a_missing_gpu) {
  const auto result = run({"run", "--trials", "0"});
  EXPECT_EQ(result.exit_code, exit_bad_input);
}

TEST_F(command_line, failing_benchmarks_are_recorded_and_the_others_go_on) {
  benchmark_registry registry;
  int later_ran = 0;
  registry.add("throws_cuda_error",
               [](state&) { throw benchmark_failed(700, "cudaErrorIllegalAddress", "test"); });
  registry.add("forgets_exec", [](state&) {});
  registry.add("skips", [&](state& s) {
    ++later_ran;
    s.skip("not on this device");
  });
  const auto csv = folder_ / "out.csv";
  const auto result =
      run_cli(registry, {"run", "--csv", csv.string(), "--junit", (folder_ / "out.xml").string()},
              true, true);
  const int code = result.exit_code;
  const std::string& out = result.out;
  const std::string& err = result.err;
  EXPECT_EQ(code, exit_benchmark_failed);
  EXPECT_EQ(later_ran, 1);
  EXPECT_NE(err.find("kerntime: 2 of 3 states failed"), std::string::npos) << err;
  // Progress lines go to a terminal stderr.
  EXPECT_NE(err.find("[1/3] throws_cuda_error ... failed"), std::string::npos) << err;
  EXPECT_NE(err.find("[3/3] skips ... skipped"), std::string::npos) << err;
  // The markdown report and every file are still written; no temporary file is left behind.
  EXPECT_NE(out.find("throws_cuda_error"), std::string::npos);
  ASSERT_TRUE(fs::exists(csv));
  std::stringstream csv_text;
  csv_text << std::ifstream(csv).rdbuf();
  EXPECT_NE(csv_text.str().find("throws_cuda_error"), std::string::npos);
  EXPECT_NE(csv_text.str().find("forgets_exec"), std::string::npos);
  EXPECT_NE(csv_text.str().find("skips"), std::string::npos);
  EXPECT_TRUE(fs::exists(folder_ / "out.xml"));
  EXPECT_EQ(std::distance(fs::directory_iterator(folder_), fs::directory_iterator()), 2);
}

TEST_F(command_line, quiet_run_prints_no_markdown_and_no_progress_off_terminal) {
  const auto result = run({"run", "--quiet"}, true, false);
  EXPECT_EQ(result.exit_code, exit_ok) << result.err;
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err, "");
}

TEST_F(command_line, skipped_states_are_not_failures) {
  const auto result = run({"run", "--filter", "beta"}, true);
  EXPECT_EQ(result.exit_code, exit_ok) << result.err;
  EXPECT_NE(result.out.find("beta"), std::string::npos);
  EXPECT_EQ(result.out.find("alpha"), std::string::npos);
}

} // namespace
} // namespace kerntime::detail
