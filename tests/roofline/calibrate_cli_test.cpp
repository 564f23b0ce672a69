// The roofline flags of `kerntime run` (--peaks, --calibration) and `kerntime calibrate` through
// the real command line: bad input exits 2 with one line naming the problem and the fix, before
// anything runs (no GPU needed).
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "cli/run_cli.hpp"
#include "roofline/calibration_file.hpp"
#include "supervise/exit_codes.hpp"
#include "temp_folder.hpp"

namespace kerntime::detail {
namespace {

namespace fs = std::filesystem;

class roofline_flags_test : public ::testing::Test {
protected:
  roofline_flags_test() {
    registry_.add("skips", [](state& s) { s.skip("never measured"); });
  }

  fs::path write(const std::string& name, const std::string& text) {
    const fs::path path = temp_.path() / name;
    std::ofstream(path) << text;
    return path;
  }

  void expect_bad_input(const std::vector<std::string>& args, const std::string& what) {
    const auto result = run_cli(registry_, args, true);
    EXPECT_EQ(result.exit_code, exit_bad_input) << result.err;
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_NE(result.err.find(what), std::string::npos) << result.err;
  }

  benchmark_registry registry_;
  testkit::temp_folder temp_{"kerntime_roofline_test"};
};

TEST_F(roofline_flags_test, a_peaks_file_that_is_not_json_is_bad_input) {
  const auto path = write("bad.json", "{flops");
  expect_bad_input({"run", "--peaks", path.string()}, "--peaks " + path.string() + " is not JSON");
}

TEST_F(roofline_flags_test, an_unknown_precision_is_bad_input_naming_the_known_ones) {
  const auto path = write("p.json", R"({"flops_per_s": {"fp4_tensor": 1e15}})");
  expect_bad_input({"run", "--peaks", path.string()},
                   "\"fp4_tensor\" is not a precision; use one of fp64, fp64_tensor, fp32");
}

TEST_F(roofline_flags_test, a_missing_peaks_file_is_bad_input) {
  expect_bad_input({"run", "--peaks", (temp_.path() / "none.json").string()},
                   "cannot read the file; give the path of a readable file");
}

TEST_F(roofline_flags_test, a_calibration_that_is_not_one_is_bad_input) {
  const auto path = write("c.json", R"({"runs": []})");
  expect_bad_input({"run", "--calibration", path.string()},
                   "is not a kerntime calibration: it has no kerntime_calibration_version; write "
                   "one with `kerntime calibrate --output FILE`");
}

TEST_F(roofline_flags_test, good_files_let_the_run_go_on) {
  const auto peaks = write("p.json", R"({"bytes_per_s": 4.8e12})");
  calibration c;
  c.device_name = "NVIDIA H200";
  const auto cal = write("c.json", calibration_to_json(c));
  const auto result = run_cli(
      registry_,
      {"run", "--no-isolation", "--peaks", peaks.string(), "--calibration", cal.string()}, true);
  EXPECT_EQ(result.exit_code, exit_ok) << result.err;
}

TEST_F(roofline_flags_test, calibrate_sizes_out_of_range_are_bad_input) {
  expect_bad_input({"calibrate", "--gemm-size", "5"}, "--gemm-size 5: give a size within");
  expect_bad_input({"calibrate", "--copy-mib", "0"}, "--copy-mib 0: give MiB within");
}

TEST_F(roofline_flags_test, calibrate_checks_its_output_path_first) {
  expect_bad_input({"calibrate", "--output", (temp_.path() / "no" / "c.json").string()},
                   "--output");
}

TEST_F(roofline_flags_test, calibrate_without_a_gpu_exits_3_and_writes_nothing) {
  std::ostringstream out;
  std::ostringstream err;
  cli_environment env;
  env.out = &out;
  env.err = &err;
  env.find_device_problem = [] { return std::optional<std::string>("no CUDA device found"); };
  const auto path = temp_.path() / "c.json";
  EXPECT_EQ(run_command_line({"kerntime", "calibrate", "--output", path.string()}, registry_, env),
            exit_no_device);
  EXPECT_NE(err.str().find("no CUDA device found"), std::string::npos);
  EXPECT_FALSE(fs::exists(path));
}

} // namespace
} // namespace kerntime::detail
