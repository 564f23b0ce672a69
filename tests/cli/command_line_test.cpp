// The real kerntime command, run in-process on a registry of CPU-only benchmarks.

#include "cli/command_line.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "cli/run_cli.hpp"
#include "supervise/exit_codes.hpp"
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
  // The values a flag takes, not CLI11's "TEXT".
  EXPECT_NE(run_help.out.find("--cuda-graph [on|off|both]"), std::string::npos) << run_help.out;
  const auto ab_help = run({"ab", "--help"});
  EXPECT_EQ(ab_help.exit_code, exit_ok);
  EXPECT_NE(ab_help.out.find("--cuda-graph [on|off]"), std::string::npos) << ab_help.out;
  EXPECT_NE(ab_help.out.find("--min-rounds"), std::string::npos);
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
                        "1 benchmark, 2 states\n");
}

TEST_F(command_line, a_command_is_required) {
  const auto result = run({});
  EXPECT_EQ(result.exit_code, exit_bad_input);
  EXPECT_NE(
      result.err.find("a command is required; the commands are run, list, info, compare, "
                      "merge, ab, calibrate, report and history (kerntime --help explains them)"),
      std::string::npos)
      << result.err;
}

TEST_F(command_line, an_unknown_command_is_told_every_command) {
  expect_bad_input({"bogus"}, "'bogus' is not a kerntime command; the commands are run, list, "
                              "info, compare, merge, ab, calibrate, report and history");
}

TEST_F(command_line, version_prints_kerntime_s_version) {
  const auto result = run({"--version"});
  EXPECT_EQ(result.exit_code, exit_ok);
  EXPECT_EQ(result.out.rfind("kerntime ", 0), 0U) << result.out;
  EXPECT_EQ(std::count(result.out.begin(), result.out.end(), '\n'), 1) << result.out;
}

TEST_F(command_line, help_names_the_program_that_links_the_command_line) {
  outcome result = run_cli(registry_, {"--help"});
  EXPECT_NE(result.out.find("Usage: kerntime "), std::string::npos) << result.out;
  std::vector<std::string> args = {"/opt/bench/my_benchmarks", "--help"};
  std::ostringstream out;
  std::ostringstream err;
  cli_environment env;
  env.out = &out;
  env.err = &err;
  EXPECT_EQ(run_command_line(args, registry_, env), exit_ok);
  EXPECT_NE(out.str().find("Usage: my_benchmarks "), std::string::npos) << out.str();
}

TEST_F(command_line, a_malformed_device_list_is_bad_input_even_without_a_gpu) {
  const auto result = run({"run", "--devices", "abc"}, false);
  EXPECT_EQ(result.exit_code, exit_bad_input) << result.err;
  EXPECT_NE(result.err.find("'abc' is not a device number"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("no device is visible here"), std::string::npos) << result.err;
  EXPECT_EQ(run({"run", "--devices", "0,0"}, false).exit_code, exit_bad_input);
  // Well-formed: the missing GPU is the problem.
  EXPECT_EQ(run({"run", "--devices", "all"}, false).exit_code, exit_no_device);
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
  expect_bad_input({"run", "--filter", "alpha("},
                   "--filter 'alpha(' is not a pattern kerntime can use: missing ): alpha(");
  // RE2 has no backreferences; the message says what is not supported.
  expect_bad_input({"run", "--filter", "(a)\\1"}, "backreferences and lookaround");
  // A lone '*' (a glob habit) names the real problem, not mismatched parentheses.
  expect_bad_input({"list", "--filter", "*"}, "no argument for repetition operator: *");
}

TEST_F(command_line, patterns_that_crashed_std_regex_are_matched_or_refused_in_bounded_time) {
  // 20,000 nested groups and a 100,000-character pattern: std::regex recursed and crashed
  // (SIGSEGV). RE2 matches the first without recursion and refuses nothing it can bound.
  const std::string nested = std::string(20000, '(') + "alpha" + std::string(20000, ')');
  const auto deep = run({"list", "--filter", nested}, true);
  EXPECT_EQ(deep.exit_code, exit_ok) << deep.err.substr(0, 300);
  EXPECT_NE(deep.out.find("state alpha/"), std::string::npos);
  EXPECT_EQ(deep.out.find("state beta"), std::string::npos);
  const std::string long_alternation = "alpha" + std::string(100000, 'x');
  const auto long_one = run({"list", "--filter", long_alternation}, true);
  EXPECT_EQ(long_one.exit_code, exit_bad_input) << long_one.err.substr(0, 300);
  EXPECT_NE(long_one.err.find("(100005 characters)"), std::string::npos)
      << long_one.err.substr(0, 300);
  EXPECT_LT(long_one.err.size(), 400U);
}

TEST_F(command_line, control_characters_in_a_value_are_escaped_in_the_message) {
  expect_bad_input({"run", "--filter", "gam\x1b[31mma"}, "'gam\\x1b[31mma'");
}

TEST_F(command_line, empty_and_out_of_range_values_are_refused_not_read_as_zero_or_clamped) {
  expect_bad_input({"run", "--trials", ""}, "--trials: an empty value is not a number");
  expect_bad_input({"run", "--json", ""}, "--json: an empty value");
  expect_bad_input({"run", "--csv", ""}, "--csv: an empty value");
  expect_bad_input({"run", "--filter", ""}, "--filter: an empty value");
  expect_bad_input({"run", "--flush-bytes", "99999999999999999999"},
                   "'99999999999999999999' is out of range for a whole number");
  expect_bad_input({"run", "--throttle-threshold", "nan"}, "'nan' is not a finite number");
  expect_bad_input({"run", "--stop-at-ci", "1e999"}, "is not a finite number in range");
  expect_bad_input({"run", "--repeat", "1000000"}, "--repeat must be at most 100000");
  expect_bad_input({"compare", "a.json", "b.json", "--alpha", ""}, "--alpha: an empty value");
}

TEST_F(command_line, messages_name_what_was_typed_in_order_and_shorten_long_values) {
  expect_bad_input({"bogus"}, "'bogus' is not a kerntime command");
  expect_bad_input({"list", "--trials", "5"}, "list does not take '--trials 5'");
  const std::string huge(100000, '9');
  const auto result = run({"run", "--trials", huge}, true);
  EXPECT_EQ(result.exit_code, exit_bad_input);
  EXPECT_NE(result.err.find("(100000 characters)"), std::string::npos) << result.err.size();
  EXPECT_LT(result.err.size(), 600U);
}

TEST_F(command_line, axis_ranges_never_overflow_and_their_product_is_capped) {
  // The bounds' difference overflows int64: this used to give one state.
  const auto wide = run({"list", "-a",
                         "N=[-9000000000000000000:9000000000000000000:"
                         "1000000000000000000]"},
                        true);
  EXPECT_EQ(wide.exit_code, exit_ok) << wide.err;
  EXPECT_NE(wide.out.find("N=-9000000000000000000"), std::string::npos);
  EXPECT_NE(wide.out.find("N=9000000000000000000"), std::string::npos);
  benchmark_registry many;
  many.add("grid", [](state& s) { s.skip("never run"); })
      .add_int_axis("a", {1})
      .add_int_axis("b", {1})
      .add_int_axis("c", {1});
  const auto too_many =
      run_cli(many, {"list", "-a", "a=[1:1000]", "-a", "b=[1:1000]", "-a", "c=[1:10]"}, true);
  EXPECT_EQ(too_many.exit_code, exit_bad_input);
  EXPECT_NE(too_many.err.find("the axes expand to 10000000 states"), std::string::npos)
      << too_many.err;
  EXPECT_EQ(too_many.err.find("--filter"), std::string::npos) << too_many.err; // too wide for one
  EXPECT_EQ(too_many.out, "");
  // The cap counts the states --filter keeps, so the advice to filter works.
  const auto one = run_cli(
      many, {"list", "-a", "a=[1:1000]", "-a", "b=[1:1000]", "--filter", "^grid/a=7/b=9/c=1$"},
      true);
  EXPECT_EQ(one.exit_code, exit_ok) << one.err;
  EXPECT_NE(one.out.find("state grid/a=7/b=9/c=1\n"), std::string::npos) << one.out;
  EXPECT_NE(one.out.find("1 benchmark, 1 state"), std::string::npos) << one.out;
  const auto wide_filter =
      run_cli(many, {"list", "-a", "a=[1:1000]", "-a", "b=[1:1000]", "--filter", "grid"}, true);
  EXPECT_EQ(wide_filter.exit_code, exit_bad_input);
  EXPECT_NE(wide_filter.err.find("--filter 'grid' selects more than 100000 of the 1000000 states"),
            std::string::npos)
      << wide_filter.err;
  const auto beyond = run_cli(
      many, {"list", "-a", "a=[1:1000]", "-a", "b=[1:1000]", "-a", "c=[1:100]", "--filter", "x"},
      true);
  EXPECT_EQ(beyond.exit_code, exit_bad_input);
  EXPECT_NE(beyond.err.find("100000000 combinations, more than the 1000000 --filter is tried on"),
            std::string::npos)
      << beyond.err;
}

TEST_F(command_line, a_value_given_twice_in_an_axis_is_refused) {
  expect_bad_input({"list", "-a", "N=[8,16,8]"}, "the value 8 is given twice");
  expect_bad_input({"list", "-a", "N[pow2]=[3,3]"}, "the value 8 is given twice");
}

TEST_F(command_line, output_paths_are_resolved_checked_for_length_and_tried_before_the_run) {
  const auto a = (folder_ / "a.json").string();
  const auto same_by_another_spelling = (folder_ / "sub" / ".." / "a.json").string();
  fs::create_directory(folder_ / "sub");
  expect_bad_input({"run", "--json", a, "--csv", same_by_another_spelling},
                   "--json and --csv both write");
  fs::create_directory_symlink(folder_, folder_ / "link");
  expect_bad_input({"run", "--json", a, "--junit", (folder_ / "link" / "a.json").string()},
                   "--json and --junit both write");
  expect_bad_input({"run", "--json", (folder_ / std::string(300, 'n')).string()},
                   "the file name is 300 bytes long");
  expect_bad_input({"run", "--json", "/proc/kerntime.json"}, "cannot create a file in '/proc'");
  fs::remove(folder_ / "link");
  fs::remove(folder_ / "sub");
  EXPECT_TRUE(fs::is_empty(folder_)) << "the probe files are removed";
}

TEST_F(command_line, junit_family_xunit2_writes_the_strict_layout) {
  const auto junit = folder_ / "out.xml";
  const auto result =
      run({"run", "--junit", junit.string(), "--junit-family", "xunit2", "-q"}, true);
  EXPECT_EQ(result.exit_code, exit_ok) << result.err;
  std::ifstream in(junit);
  const std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto first_testcase = xml.find("<testcase");
  ASSERT_NE(first_testcase, std::string::npos) << xml;
  EXPECT_EQ(xml.find("<properties>", first_testcase), std::string::npos) << xml;
  expect_bad_input({"run", "--junit", junit.string(), "--junit-family", "xunit3"},
                   "--junit-family 'xunit3' is not a JUnit flavour");
  expect_bad_input({"run", "--junit-family", "xunit2"}, "add --junit FILE");
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
  expect_bad_input({"run", "--warmup", ""}, "--warmup: an empty value");
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
                   "--throttle-threshold must be a fraction of the maximum SM clock in (0, 1] "
                   "(got 1.5); e.g. --throttle-threshold 0.9 for 90 % of the maximum SM clock");
  // A percentage where the fraction goes is answered with the fraction it meant.
  expect_bad_input({"run", "--throttle-threshold", "85"},
                   "(got 85); e.g. --throttle-threshold 0.85 for 85 % of the maximum SM clock");
  expect_bad_input({"run", "--throttle-threshold", "-0.9"}, "--throttle-threshold must be");
  expect_bad_input({"run", "--throttle-threshold", "0"}, "--throttle-threshold must be");
  expect_bad_input({"run", "--discard-throttled", "--no-telemetry"}, "contradict");
}

TEST_F(command_line, counters_options) {
  expect_bad_input({"run", "--counters", "--backend", "events"},
                   "--counters needs CUPTI (the range profiler), and --backend events asks for "
                   "CUDA events; drop one");
  expect_bad_input({"run", "--metrics", "dram bytes"}, "--metrics takes CUPTI metric names");
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

TEST_F(command_line, a_context_that_cannot_be_made_stops_an_in_process_run_before_any_state) {
  // No worker program: the states would run in this process, which makes its CUDA context first.
  // A supervisor with workers makes none (each worker makes its own).
  std::ostringstream out;
  std::ostringstream err;
  cli_environment env;
  env.out = &out;
  env.err = &err;
  env.find_device_problem = [] { return std::optional<std::string>(); };
  int contexts = 0;
  env.create_context = [&] {
    ++contexts;
    return std::optional<std::string>(
        "the CUDA device cannot be used: all CUDA-capable devices are busy or unavailable "
        "(cudaErrorDevicesUnavailable); check the driver and that no other process holds the "
        "GPU in exclusive mode");
  };
  const auto json = folder_ / "out.json";
  const int code = run_command_line({"kerntime", "run", "--json", json.string()}, registry_, env);
  EXPECT_EQ(code, exit_no_device);
  EXPECT_EQ(contexts, 1);
  EXPECT_EQ(err.str().rfind("kerntime: the CUDA device cannot be used: ", 0), 0u) << err.str();
  EXPECT_FALSE(fs::exists(json));
  // `list` needs no device and makes no context.
  EXPECT_EQ(run_command_line({"kerntime", "list"}, registry_, env), exit_ok);
  EXPECT_EQ(contexts, 1);
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

TEST_F(command_line, a_history_store_that_cannot_be_used_is_refused_before_anything_runs) {
  benchmark_registry registry;
  int ran = 0;
  registry.add("counts", [&](state& s) {
    ++ran;
    s.skip("counted");
  });
  const auto store = (folder_ / "no such folder" / "history.sqlite").string();
  const auto refused = run_cli(registry, {"run", "--store", store}, true);
  EXPECT_EQ(refused.exit_code, exit_bad_input);
  EXPECT_NE(refused.err.find("cannot open the history store " + store), std::string::npos)
      << refused.err;
  EXPECT_EQ(ran, 0);
  const auto label = run_cli(registry, {"run", "--store", "h.sqlite", "--label", "x"}, true);
  EXPECT_EQ(label.exit_code, exit_bad_input);
  EXPECT_NE(label.err.find("--label x is not KEY=VALUE"), std::string::npos) << label.err;
  const auto alone = run_cli(registry, {"run", "--commit", "abc"}, true);
  EXPECT_EQ(alone.exit_code, exit_bad_input);
  EXPECT_NE(alone.err.find("give the store too"), std::string::npos) << alone.err;
  EXPECT_EQ(ran, 0);
}

TEST_F(command_line, a_run_the_history_cannot_keep_says_so_and_keeps_its_files) {
  benchmark_registry registry;
  registry.add("skips", [](state& s) { s.skip("nothing measured"); });
  const auto json = folder_ / "out.json";
  const auto store = folder_ / "history.sqlite";
  const auto result =
      run_cli(registry,
              {"run", "--json", json.string(), "--store", store.string(), "--commit", "abc"}, true);
  // Nothing was measured, so no GPU is named: the store refuses the run, the file stays.
  EXPECT_EQ(result.exit_code, exit_benchmark_failed);
  EXPECT_NE(result.err.find("the run was not added to the history"), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("names no GPU"), std::string::npos) << result.err;
  EXPECT_TRUE(fs::exists(json));
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

std::string read_text(const fs::path& path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

TEST_F(command_line, report_renders_a_kerntime_json_again_into_any_format) {
  const auto json = folder_ / "run.json";
  ASSERT_EQ(run({"run", "--json", json.string(), "-q"}, true).exit_code, exit_ok);
  const auto html = folder_ / "run.html";
  const auto csv = folder_ / "run.csv";
  const auto result =
      run({"report", json.string(), "--html", html.string(), "--csv", csv.string()});
  EXPECT_EQ(result.exit_code, exit_ok) << result.err;
  EXPECT_NE(result.out.find("## alpha"), std::string::npos) << result.out; // markdown on stdout
  const std::string page = read_text(html);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0U);
  EXPECT_NE(page.find("alpha/N=2/mode=y"), std::string::npos);
  EXPECT_NE(read_text(csv).find("beta/bytes=4096/f=0.5"), std::string::npos);
}

TEST_F(command_line, report_filter_keeps_the_states_it_finds_and_refuses_one_that_finds_none) {
  const auto json = folder_ / "run.json.gz"; // written compressed, read back
  ASSERT_EQ(run({"run", "--json", json.string(), "-q"}, true).exit_code, exit_ok);
  const auto result = run({"report", json.string(), "--filter", "^beta/"});
  EXPECT_EQ(result.exit_code, exit_ok) << result.err;
  EXPECT_NE(result.out.find("beta/bytes=4096/f=0.5"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find("alpha"), std::string::npos) << result.out;
  const auto html = folder_ / "none.html";
  expect_bad_input({"report", json.string(), "--filter", "^gamma", "--html", html.string()},
                   "--filter '^gamma' finds none of the");
  expect_bad_input({"report", json.string(), "--filter", "(", "--html", html.string()},
                   "--filter '(' is not a pattern");
  EXPECT_FALSE(fs::exists(html));
}

TEST_F(command_line, report_of_a_file_that_is_not_a_kerntime_json_writes_nothing) {
  const auto notes = folder_ / "notes.txt";
  std::ofstream(notes) << "hello\n";
  const auto html = folder_ / "r.html";
  expect_bad_input({"report", notes.string(), "--html", html.string()},
                   "notes.txt is not a kerntime result set: not JSON");
  expect_bad_input({"report", (folder_ / "missing.json").string(), "--html", html.string()},
                   "cannot read");
  expect_bad_input({"report", "--html", html.string()}, "file is required");
  EXPECT_FALSE(fs::exists(html));
}

TEST_F(command_line, run_writes_its_html_even_when_compare_refuses_the_baseline) {
  const auto base = folder_ / "base.json";
  ASSERT_EQ(run({"run", "--json", base.string(), "-q"}, true).exit_code, exit_ok);
  // Every state skipped on both sides: no state to compare, which compare refuses.
  const auto html = folder_ / "run.html";
  const auto result =
      run({"run", "--baseline", base.string(), "--html", html.string(), "-q"}, true);
  EXPECT_EQ(result.exit_code, exit_bad_input) << result.err;
  EXPECT_NE(read_text(html).find("beta/bytes=1024/f=0.5"), std::string::npos);
}

// `compare s1.json s2.json --json s2.json` once replaced a run's results with the comparison.
// Every command that reads result files refuses an output over one of them, however spelled.
TEST_F(command_line, no_command_writes_a_report_over_a_file_it_reads) {
  const auto base = folder_ / "base.json";
  const auto fresh = folder_ / "new.json";
  ASSERT_EQ(run({"run", "--json", base.string(), "-q"}, true).exit_code, exit_ok);
  ASSERT_EQ(run({"run", "--json", fresh.string(), "-q"}, true).exit_code, exit_ok);
  fs::create_directory(folder_ / "sub");
  fs::create_symlink(fresh, folder_ / "link.json");
  fs::create_hard_link(fresh, folder_ / "hard.json");
  const std::string base_text = read_text(base);
  const std::string new_text = read_text(fresh);
  const std::string dotted = (folder_ / "sub" / ".." / "new.json").string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"compare", base.string(), fresh.string(), "--json", fresh.string()}, "would replace '"},
      {{"compare", base.string(), fresh.string(), "--csv", dotted}, "(the new results)"},
      {{"compare", base.string(), fresh.string(), "--junit", (folder_ / "link.json").string()},
       "(the new results)"},
      {{"compare", base.string(), fresh.string(), "--json", (folder_ / "hard.json").string()},
       "(the new results)"},
      {{"compare", "--base", folder_.string(), "--new", fresh.string(), "--json", base.string()},
       "(the base results)"},
      {{"report", fresh.string(), "--json", fresh.string()}, "(the results to report)"},
      {{"report", fresh.string(), "--baseline", base.string(), "--html", base.string()},
       "(the baseline)"},
      {{"merge", fresh.string(), "--gbench-json", dotted}, "(a file to merge)"},
      {{"run", "--baseline", base.string(), "--json", base.string()}, "(the baseline)"},
  };
  for (const auto& [args, what] : cases) {
    expect_bad_input(args, what);
    EXPECT_NE(run(args, true)
                  .err.find(", which this command reads; write the report to another "
                            "file"),
              std::string::npos);
  }
  EXPECT_EQ(read_text(base), base_text);
  EXPECT_EQ(read_text(fresh), new_text);
}

} // namespace
} // namespace kerntime::detail
