// run --counters in two phases: the phases' protocols, the merge of counted runs into timed ones
// (their derived values recomputed with the timed durations, failures said in words), and a
// counters-only result (no trials) travelling from worker to supervisor as a result message.

#include "cli/counter_phase.hpp"

#include <gtest/gtest.h>

#include "supervise/worker_messages.hpp"

namespace kerntime::detail {
namespace {

const std::string copy_kernel = "copy_kernel(float4 const*, float4*, unsigned long)";

benchmark_run timed_run(std::size_t index) {
  benchmark_run run;
  run.benchmark = "copy";
  run.state_name = "copy/bytes=" + std::to_string(index);
  run.plan_index = index;
  measurement_result r;
  r.latency_ns = 100'000;
  r.kernels.push_back({copy_kernel, activity_kind::kernel, 1, 100'000, 100'000, 1.0});
  run.result = r;
  return run;
}

benchmark_run counted_run(std::size_t index) {
  benchmark_run run = timed_run(index);
  measurement_result r;
  r.protocol_used.counters = true;
  r.protocol_used.counters_only = true;
  r.counters.status = counters_status::measured;
  r.counters.chip = "GH100";
  r.counters.passes = 2;
  const std::map<std::string, double> metrics{{counter_metrics::dram_read, 200e6},
                                              {counter_metrics::dram_write, 200e6},
                                              {counter_metrics::dram_percent, 80.0},
                                              {counter_metrics::tensor_pipe, 0.0}};
  r.counters.kernels.push_back({copy_kernel, 1, metrics, {}});
  r.counters.metrics_total = metrics;
  run.result = r;
  return run;
}

TEST(counter_phase, timing_runs_without_counters_and_the_counter_phase_without_trials) {
  protocol p;
  p.counters = true;
  p.metrics = {"dram__bytes_read.sum"};
  const protocol timing = protocol_for_phase(p, counter_phase::timing);
  EXPECT_FALSE(timing.counters);
  EXPECT_TRUE(timing.metrics.empty());
  EXPECT_FALSE(validate(timing).has_value());
  const protocol counting = protocol_for_phase(p, counter_phase::counters);
  EXPECT_TRUE(counting.counters && counting.counters_only);
  EXPECT_EQ(counting.metrics, p.metrics);
  EXPECT_FALSE(validate(counting).has_value());
  protocol alone;
  alone.counters_only = true;
  EXPECT_TRUE(validate(alone).has_value()) << "counters_only needs counters";
  EXPECT_EQ(parse_counter_phase(to_string(counter_phase::counters)), counter_phase::counters);
  EXPECT_EQ(parse_counter_phase("timing"), counter_phase::timing);
  EXPECT_FALSE(parse_counter_phase("both"));
}

TEST(counter_phase, timed_runs_take_their_counters_with_their_own_durations) {
  std::vector<benchmark_run> timed = {timed_run(0), timed_run(1), timed_run(2), timed_run(3)};
  timed[3].status = run_status::failed; // failed in timing: left alone
  timed[3].result.reset();
  benchmark_run failed = counted_run(1);
  failed.status = run_status::failed;
  failed.message = "cudaMalloc: out of memory";
  failed.result.reset();
  const std::vector<benchmark_run> counted = {counted_run(0), failed}; // 2: never ran
  protocol asked;
  asked.counters = true;
  merge_counter_phase(timed, counted, asked);

  const counters_summary& got = timed[0].result->counters;
  ASSERT_EQ(got.status, counters_status::measured);
  EXPECT_EQ(got.chip, "GH100");
  ASSERT_TRUE(got.derived.dram_bytes_per_second.has_value());
  EXPECT_DOUBLE_EQ(*got.derived.dram_bytes_per_second, 400e6 / 100'000e-9)
      << "bytes over the timed latency of the timing phase";
  EXPECT_DOUBLE_EQ(got.kernels[0].derived.dram_bytes_per_second.value_or(0), 400e6 / 100'000e-9);
  EXPECT_EQ(got.derived.bound, roofline_bound::memory);
  EXPECT_TRUE(timed[0].result->protocol_used.counters);
  EXPECT_DOUBLE_EQ(timed[0].result->latency_ns, 100'000) << "timing is the timing phase's";

  EXPECT_EQ(timed[1].result->counters.status, counters_status::unavailable);
  EXPECT_EQ(timed[1].result->counters.reason,
            "the state's counter pass failed: cudaMalloc: out of memory");
  EXPECT_EQ(timed[2].result->counters.status, counters_status::unavailable);
  EXPECT_NE(timed[2].result->counters.reason.find("did not run"), std::string::npos);
  EXPECT_FALSE(timed[3].result.has_value());
}

TEST(counter_phase, a_counters_only_result_travels_as_a_result_message) {
  const benchmark_run sent = counted_run(5);
  const worker_message got = parse_worker_message(result_message(sent));
  ASSERT_EQ(got.what, worker_message::kind::result);
  ASSERT_TRUE(got.run.result.has_value());
  EXPECT_EQ(got.run.plan_index, 5u);
  EXPECT_TRUE(got.run.result->protocol_used.counters_only);
  EXPECT_EQ(got.run.result->counters.status, counters_status::measured);
  EXPECT_EQ(got.run.result->counters.kernels.at(0).metrics.at(counter_metrics::dram_read), 200e6);
}

} // namespace
} // namespace kerntime::detail
