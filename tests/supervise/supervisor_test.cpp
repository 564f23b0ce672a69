// The supervisor against a stand-in worker program (stand_in_worker.cpp) that crashes, hangs,
// faults and exits on request: every state gets exactly one record, in plan order, with the
// reason, and the run goes on in a fresh worker.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "stand_in_outcome.hpp"
#include "supervise/supervisor.hpp"

#ifndef KERNTIME_STAND_IN_WORKER
#error "KERNTIME_STAND_IN_WORKER must name the stand-in worker program"
#endif

namespace kerntime::detail {
namespace {

std::vector<supervised_state> states_named(const std::vector<std::string>& names) {
  std::vector<supervised_state> states;
  for (std::size_t i = 0; i < names.size(); ++i) {
    supervised_state s;
    s.identity.benchmark = names[i].substr(0, names[i].find('/'));
    s.identity.state_name = names[i];
    s.identity.plan_index = i;
    states.push_back(s);
  }
  return states;
}

worker_slot stand_in(int device, std::vector<std::pair<std::string, std::string>> env = {}) {
  env.emplace_back("KERNTIME_WORKER_DEVICE", std::to_string(device));
  return {.launch = {.argv = {KERNTIME_STAND_IN_WORKER}, .environment = env},
          .label = "GPU " + std::to_string(device)};
}

using outcome = stand_in_outcome<benchmark_run>;

outcome supervise_with(const std::vector<std::string>& names, std::vector<worker_slot> slots,
                       double timeout_s = 30, double exit_timeout_s = 30) {
  supervisor_settings settings;
  settings.slots = std::move(slots);
  settings.state_timeout_s = timeout_s;
  settings.start_timeout_s = 30;
  settings.exit_timeout_s = exit_timeout_s;
  return run_capturing_events<benchmark_run>(
      settings, [&names](const supervisor_settings& s, supervision_summary* summary) {
        return supervise(states_named(names), s, summary);
      });
}

TEST(supervisor, a_healthy_run_keeps_one_worker_and_streams_every_result_in_plan_order) {
  const auto o = supervise_with({"ok/a", "ok/b", "ok/c", "ok/d"}, {stand_in(0)});
  ASSERT_EQ(o.states.size(), 4u);
  for (std::size_t i = 0; i < o.states.size(); ++i) {
    EXPECT_EQ(o.states[i].status, run_status::ok) << o.states[i].message;
    EXPECT_EQ(o.states[i].plan_index, i);
    ASSERT_TRUE(o.states[i].result);
    EXPECT_EQ(o.states[i].result->latency_ns, 1000.0 + static_cast<double>(i));
    ASSERT_TRUE(o.states[i].device);
    EXPECT_EQ(o.states[i].device->name, "Stand-in GPU");
  }
  EXPECT_EQ(o.summary.workers_started, 1);
  EXPECT_EQ(o.summary.faults, 0);
  EXPECT_EQ(o.events, "");
  // The one worker was told to stop after the last state and its exit was waited for.
  ASSERT_EQ(o.summary.worker_exit_seconds.size(), 1u);
  EXPECT_GE(o.summary.worker_exit_seconds[0], 0.0);
  EXPECT_LT(o.summary.worker_exit_seconds[0], 30.0);
}

TEST(supervisor, a_worker_that_dies_mid_state_fails_that_state_only) {
  const auto o = supervise_with({"ok/a", "crash/b", "ok/c", "exit/d", "ok/e"}, {stand_in(0)});
  ASSERT_EQ(o.states.size(), 5u);
  EXPECT_EQ(o.states[0].status, run_status::ok); // measured before the crash: kept
  EXPECT_EQ(o.states[1].status, run_status::failed);
  EXPECT_EQ(o.states[1].error, error_kind::crashed);
  EXPECT_NE(o.states[1].message.find("crashed: signal 11 (SIGSEGV)"), std::string::npos)
      << o.states[1].message;
  EXPECT_EQ(o.states[1].state_name, "crash/b");
  ASSERT_TRUE(o.states[1].device); // the device it was on, from the worker's ready line
  EXPECT_EQ(o.states[2].status, run_status::ok);
  EXPECT_EQ(o.states[3].error, error_kind::crashed);
  EXPECT_NE(o.states[3].message.find("crashed: exit code 3"), std::string::npos);
  EXPECT_EQ(o.states[4].status, run_status::ok);
  EXPECT_EQ(o.summary.workers_started, 3);
  EXPECT_EQ(o.summary.faults, 2);
  // Only the last worker was told to stop; the two that died are no exit the command waited for.
  EXPECT_EQ(o.summary.worker_exit_seconds.size(), 1u);
  EXPECT_NE(o.events.find("crash/b crashed the worker"), std::string::npos) << o.events;
}

TEST(supervisor, a_hanging_state_is_killed_at_the_timeout_and_the_run_goes_on) {
  const auto start = std::chrono::steady_clock::now();
  const auto o = supervise_with({"ok/a", "hang/b", "ok/c"}, {stand_in(0)}, 1.0);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(o.states.size(), 3u);
  EXPECT_EQ(o.states[1].error, error_kind::timed_out);
  EXPECT_NE(o.states[1].message.find("timed_out after 1 s"), std::string::npos)
      << o.states[1].message;
  EXPECT_GE(o.states[1].wall_seconds, 1.0);
  EXPECT_EQ(o.states[2].status, run_status::ok);
  EXPECT_LT(seconds, 20.0); // killed, not waited for
  EXPECT_EQ(o.summary.workers_started, 2);
}

TEST(supervisor, a_cuda_fault_ends_the_worker_and_the_next_state_gets_a_fresh_one) {
  const auto log = std::filesystem::temp_directory_path() / "kerntime_stand_in_fault.log";
  std::filesystem::remove(log);
  const auto o = supervise_with({"fault/a", "ok/b", "fault/c", "ok/d"},
                                {stand_in(0, {{"STAND_IN_LOG", log.string()}})});
  EXPECT_EQ(o.states[0].error, error_kind::cuda_fault);
  EXPECT_EQ(o.states[1].status, run_status::ok);
  EXPECT_EQ(o.states[2].error, error_kind::cuda_fault);
  EXPECT_EQ(o.states[3].status, run_status::ok);
  EXPECT_EQ(o.summary.workers_started, 3);
  EXPECT_EQ(o.summary.faults, 2);
  std::ifstream in(log);
  int starts = 0;
  for (std::string line; std::getline(in, line);) {
    starts += line.starts_with("start ") ? 1 : 0;
  }
  EXPECT_EQ(starts, 3);
}

TEST(supervisor, a_worker_whose_exit_hangs_is_killed_and_the_run_ends_with_every_result) {
  const auto start = std::chrono::steady_clock::now();
  const auto o = supervise_with({"ok/a", "fault/b", "ok/c"},
                                {stand_in(0, {{"STAND_IN_HANG_AT_EXIT", "1"}})}, 30, 1);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(o.states.size(), 3U);
  EXPECT_EQ(o.states[0].status, run_status::ok);
  EXPECT_EQ(o.states[1].error, error_kind::cuda_fault);
  EXPECT_EQ(o.states[2].status, run_status::ok);
  // The fault's worker exits on its own (it returns at once); the last one hangs and is killed.
  EXPECT_NE(o.events.find("had not exited 1 s after its last state and was killed"),
            std::string::npos)
      << o.events;
  EXPECT_LT(seconds, 20) << "the run waited on a worker that never exits";
}

TEST(supervisor, a_worker_that_speaks_garbage_is_stopped_and_its_state_fails) {
  const auto o = supervise_with({"garbage/a", "ok/b"}, {stand_in(0)});
  EXPECT_EQ(o.states[0].status, run_status::failed);
  EXPECT_EQ(o.states[0].error, error_kind::crashed);
  EXPECT_NE(o.events.find("not a message"), std::string::npos) << o.events;
  EXPECT_EQ(o.states[1].status, run_status::ok);
}

TEST(supervisor, a_device_whose_workers_cannot_start_fails_every_state_with_the_reason) {
  const auto o = supervise_with({"ok/a", "ok/b"},
                                {stand_in(0, {{"STAND_IN_UNUSABLE", "no CUDA device found"}})});
  ASSERT_EQ(o.states.size(), 2u);
  for (const auto& run : o.states) {
    EXPECT_EQ(run.status, run_status::failed);
    EXPECT_EQ(run.error, error_kind::device_unavailable);
    EXPECT_NE(run.message.find("no CUDA device found"), std::string::npos) << run.message;
  }
  EXPECT_EQ(o.summary.workers_started, 2); // two attempts, then the device is given up
}

TEST(supervisor, a_program_that_cannot_be_executed_reads_as_a_worker_that_never_started) {
  supervisor_settings settings;
  settings.slots = {
      {.launch = {.argv = {"/nonexistent/kerntime-worker"}, .environment = {}}, .label = "GPU 0"}};
  const auto runs = supervise(states_named({"ok/a"}), settings);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].error, error_kind::device_unavailable);
  EXPECT_NE(runs[0].message.find("exit code 127"), std::string::npos) << runs[0].message;
}

TEST(supervisor, several_devices_share_one_queue_and_the_records_keep_plan_order) {
  std::vector<std::string> names;
  names.reserve(12);
  for (int i = 0; i < 12; ++i) {
    names.push_back("ok/s" + std::to_string(i));
  }
  names[5] = "crash/s5";
  // 100 ms a state: every worker is ready long before the queue runs dry.
  const std::vector<std::pair<std::string, std::string>> slow{{"STAND_IN_STATE_MS", "100"}};
  const auto o = supervise_with(names, {stand_in(0, slow), stand_in(1, slow), stand_in(2, slow)});
  ASSERT_EQ(o.states.size(), 12u);
  std::set<int> devices;
  for (std::size_t i = 0; i < o.states.size(); ++i) {
    EXPECT_EQ(o.states[i].state_name, names[i]);
    EXPECT_EQ(o.states[i].plan_index, i);
    ASSERT_TRUE(o.states[i].device);
    devices.insert(o.states[i].device->ordinal);
    EXPECT_EQ(o.states[i].status, i == 5 ? run_status::failed : run_status::ok);
  }
  EXPECT_EQ(devices, (std::set<int>{0, 1, 2})); // every device took states
  EXPECT_EQ(o.summary.workers_started, 4);      // three, and one after the crash (6 states left)
}

TEST(supervisor, the_queue_hands_out_unknown_states_first_then_the_longest) {
  auto states = states_named({"a", "b", "c", "d", "e"});
  states[0].expected_seconds = 1.0;
  states[1].expected_seconds = 9.0;
  states[3].expected_seconds = 4.0;
  EXPECT_EQ(queue_order(states), (std::vector<std::size_t>{2, 4, 1, 3, 0}));
}

} // namespace
} // namespace kerntime::detail
