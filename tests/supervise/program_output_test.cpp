// What a program prints, as `kerntime ab` asks its programs for their plans
// (supervise/program_output.hpp), through real processes: the output and exit, a program that
// never exits though its pipes are closed, one that exits leaving a child holding its pipes, one
// that prints without end, and an error stream kept to its start.

#include "supervise/program_output.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace kerntime::detail {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

program_output shell(const std::string& script, double timeout_s = 30) {
  return run_program({"/bin/sh", "-c", script}, timeout_s);
}

TEST(program_output, gives_what_it_printed_and_how_it_exited) {
  const auto done = shell("echo plan; echo why >&2; exit 3");
  EXPECT_EQ(done.out, "plan\n");
  EXPECT_EQ(done.err, "why\n");
  EXPECT_EQ(done.exit_code, 3);
  EXPECT_EQ(done.how, "exit code 3");
  EXPECT_FALSE(done.timed_out);
}

TEST(program_output, a_program_that_closes_its_output_and_never_exits_is_killed_at_the_timeout) {
  const auto start = clock_type::now();
  const auto done = shell("exec >/dev/null 2>&1; sleep 30", 1);
  EXPECT_TRUE(done.timed_out);
  EXPECT_EQ(done.exit_code, -1);
  EXPECT_LT(seconds_since(start), 10) << "it waited for the program to exit";
}

TEST(program_output, a_program_that_exits_leaving_a_child_on_its_pipes_is_read_as_exited) {
  const auto start = clock_type::now();
  const auto done = shell("sleep 30 & echo plan", 60);
  EXPECT_FALSE(done.timed_out);
  EXPECT_EQ(done.exit_code, 0);
  EXPECT_EQ(done.out, "plan\n");
  EXPECT_LT(seconds_since(start), 10) << "it waited for the child holding the pipes";
}

TEST(program_output, a_program_that_prints_without_end_is_stopped_at_the_output_limit) {
  const auto done = run_program({"/usr/bin/yes"}, 60);
  EXPECT_TRUE(done.too_much_output);
  EXPECT_FALSE(done.timed_out);
  EXPECT_LE(done.out.size(), max_output_bytes + (std::size_t{1} << 20));
}

TEST(program_output, only_the_start_of_the_error_stream_is_kept) {
  const auto done = shell("head -c 1000000 /dev/zero | tr '\\\\0' x >&2; echo done");
  EXPECT_EQ(done.out, "done\n");
  EXPECT_EQ(done.err.size(), max_error_bytes);
}

TEST(program_output, a_program_that_cannot_be_started_says_why) {
  const auto done = run_program({"/nonexistent/program"}, 5);
  EXPECT_EQ(done.exit_code, -1);
  EXPECT_NE(done.how.find("could not be started"), std::string::npos) << done.how;
}

} // namespace
} // namespace kerntime::detail
