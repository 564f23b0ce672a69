// The worker protocol's lines, written and read back through the real JSON writer and reader.

#include <gtest/gtest.h>

#include "kerntime/errors.hpp"
#include "supervise/worker_messages.hpp"

namespace kerntime::detail {
namespace {

TEST(worker_messages, a_run_command_carries_the_index_and_the_whole_name) {
  const auto line = run_command(17, "gemm/M=4096/label=a b");
  const auto request = parse_run_command(line);
  ASSERT_TRUE(request);
  EXPECT_EQ(request->plan_index, 17u);
  EXPECT_EQ(request->state_name, "gemm/M=4096/label=a b");
  EXPECT_FALSE(parse_run_command("run x name"));
  EXPECT_FALSE(parse_run_command("run 3"));
  EXPECT_FALSE(parse_run_command("walk 3 name"));
  EXPECT_EQ(run_command(1, "a\nb"), "run 1 a b"); // one line whatever the name holds
}

TEST(worker_messages, a_result_goes_over_as_one_line_and_comes_back_whole) {
  benchmark_run run;
  run.benchmark = "copy";
  run.state_name = "copy/bytes=1\n<&>";
  run.axes = {{"bytes", "1"}};
  run.status = run_status::failed;
  run.error = error_kind::cuda_fault;
  run.message = "CUDA error\nsticky";
  run.plan_index = 4;
  run.device = run_device{"node7", 1, "NVIDIA H200", "GPU-abc"};
  const auto line = result_message(run);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  const auto m = parse_worker_message(line);
  ASSERT_EQ(m.what, worker_message::kind::result);
  EXPECT_EQ(m.run.state_name, run.state_name);
  EXPECT_EQ(m.run.error, error_kind::cuda_fault);
  EXPECT_EQ(m.run.message, run.message);
  EXPECT_EQ(m.run.plan_index, 4u);
  ASSERT_TRUE(m.run.device);
  EXPECT_EQ(m.run.device->uuid, "GPU-abc");
  EXPECT_EQ(m.run.device->host, "node7");
}

TEST(worker_messages, ready_and_unusable_lines) {
  const auto ready = parse_worker_message(ready_message(run_device{"h", 2, "GPU name", "GPU-1"}));
  EXPECT_EQ(ready.what, worker_message::kind::ready);
  ASSERT_TRUE(ready.device);
  EXPECT_EQ(ready.device->ordinal, 2);
  EXPECT_FALSE(parse_worker_message(ready_message(std::nullopt)).device);
  const auto unusable = parse_worker_message(unusable_message("no CUDA device\nfound"));
  EXPECT_EQ(unusable.what, worker_message::kind::unusable);
  EXPECT_EQ(unusable.text, "no CUDA device found");
}

TEST(worker_messages, anything_else_is_refused) {
  EXPECT_THROW((void)parse_worker_message("hello"), invalid_argument);
  EXPECT_THROW((void)parse_worker_message("result {"), invalid_argument);
  EXPECT_THROW((void)parse_worker_message("ready {"), invalid_argument);
}

} // namespace
} // namespace kerntime::detail
