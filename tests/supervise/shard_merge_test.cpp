// Merging shard files: plan order back, and each way files can fail to fit together refused
// with the files named.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kerntime/errors.hpp"
#include "supervise/shard_merge.hpp"

namespace kerntime::detail {
namespace {

benchmark_run run_at(std::size_t plan_index) {
  benchmark_run run;
  run.benchmark = "copy";
  run.state_name = "copy/i=" + std::to_string(plan_index);
  run.plan_index = plan_index;
  run.status = run_status::skipped;
  run.message = "stand-in";
  return run;
}

// Shard `index` of `count` over a plan of `states` states, as `run --shard` writes it.
named_input<result_set> shard_file(int index, int count, std::size_t states,
                                   std::string version = "0.1.0") {
  result_set set;
  set.context.kerntime_version = std::move(version);
  set.context.host_name = "node" + std::to_string(index);
  set.context.shard = shard_spec{index, count};
  set.context.plan_states = states;
  for (std::size_t i = static_cast<std::size_t>(index); i < states;
       i += static_cast<std::size_t>(count)) {
    set.runs.push_back(run_at(i));
  }
  return {"shard-" + std::to_string(index) + ".json", set};
}

template <typename Action> std::string error_of(Action action) {
  try {
    action();
  } catch (const invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(shard_merge, joins_the_shards_in_plan_order_whatever_order_the_files_come_in) {
  const auto merged =
      merge_result_sets({shard_file(2, 3, 10), shard_file(0, 3, 10), shard_file(1, 3, 10)},
                        {.command_line = "kerntime merge …"});
  ASSERT_EQ(merged.runs.size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(merged.runs[i].plan_index, i);
  }
  EXPECT_FALSE(merged.context.shard);
  EXPECT_EQ(merged.context.plan_states, 10u);
  EXPECT_EQ(merged.context.command_line, "kerntime merge …");
  EXPECT_EQ(merged.context.host_name, "node2, node0, node1");
}

TEST(shard_merge, refuses_a_missing_shard_unless_partial_is_asked_for) {
  const std::vector inputs{shard_file(0, 4, 10), shard_file(2, 4, 10)};
  EXPECT_NE(
      error_of([&] { (void)merge_result_sets(inputs, {}); }).find("shards 1, 3 of 4 are missing"),
      std::string::npos);
  const auto partial = merge_result_sets(inputs, {.allow_partial = true, .command_line = ""});
  // 0, 4, 8 and 2, 6 measured; 1, 5, 9 and 3, 7 of the missing shards, skipped with the reason.
  ASSERT_EQ(partial.runs.size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) {
    const auto& run = partial.runs[i];
    EXPECT_EQ(run.plan_index, i);
    const bool missing = i % 4 == 1 || i % 4 == 3;
    EXPECT_EQ(run.benchmark, missing ? "missing_shard" : "copy") << i;
    if (missing) {
      EXPECT_EQ(run.status, run_status::skipped);
      EXPECT_EQ(run.state_name, fmt::format("missing_shard/shard={}of4/plan_index={}", i % 4, i));
      EXPECT_NE(run.message.find(fmt::format("shard {}/4 was not merged", i % 4)),
                std::string::npos);
      EXPECT_NE(run.message.find(fmt::format("kerntime list --shard {}/4", i % 4)),
                std::string::npos);
    }
  }
}

TEST(shard_merge, refuses_duplicates_versions_and_shards_of_different_runs) {
  EXPECT_NE(error_of([] {
              (void)merge_result_sets({shard_file(0, 2, 6), shard_file(0, 2, 6)}, {});
            }).find("shard-0.json and shard-0.json are both shard 0/2"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              (void)merge_result_sets({shard_file(0, 2, 6), shard_file(1, 2, 6, "0.2.0")}, {});
            }).find("written by kerntime 0.1.0 and shard-1.json by kerntime 0.2.0"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              (void)merge_result_sets({shard_file(0, 2, 6), shard_file(1, 3, 6)}, {});
            }).find("shards of different runs"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              (void)merge_result_sets({shard_file(0, 2, 6), shard_file(1, 2, 8)}, {});
            }).find("shards of different runs"),
            std::string::npos);
  auto whole = shard_file(0, 1, 3);
  whole.content.context.shard.reset();
  whole.source = "whole.json";
  EXPECT_NE(error_of([&] {
              (void)merge_result_sets({shard_file(0, 2, 6), whole}, {});
            }).find("whole.json is a whole run"),
            std::string::npos);
  auto a = shard_file(0, 1, 2);
  a.content.context.shard.reset();
  auto b = a;
  b.source = "again.json";
  EXPECT_NE(error_of([&] {
              (void)merge_result_sets({a, b}, {});
            }).find("state copy/i=0 is in both shard-0.json and again.json"),
            std::string::npos);
  EXPECT_NE(error_of([] { (void)merge_result_sets({}, {}); }).find("nothing to merge"),
            std::string::npos);
}

TEST(shard_merge, whole_runs_without_plan_indices_keep_the_order_of_the_files) {
  auto a = shard_file(0, 1, 2);
  a.content.context.shard.reset();
  auto b = a;
  b.source = "b.json";
  for (auto& run : b.content.runs) {
    run.state_name += "/other";
    run.plan_index.reset();
  }
  const auto merged = merge_result_sets({b, a}, {});
  ASSERT_EQ(merged.runs.size(), 4u);
  EXPECT_EQ(merged.runs[0].state_name, "copy/i=0/other");
  EXPECT_EQ(merged.runs[2].state_name, "copy/i=0");
}

TEST(shard_merge, plans_merge_into_the_full_plan) {
  std::vector<named_input<plan_listing>> shards;
  for (int index = 0; index < 3; ++index) {
    plan_listing p;
    p.kerntime_version = "0.1.0";
    p.shard = shard_spec{index, 3};
    p.plan_states = 7;
    for (std::size_t i = static_cast<std::size_t>(index); i < 7; i += 3) {
      p.states.push_back({i, "s" + std::to_string(i), "b"});
    }
    shards.push_back({"plan-" + std::to_string(index) + ".json", parse_plan(plan_to_json(p), "x")});
  }
  std::swap(shards[0], shards[2]);
  const auto merged = merge_plans(shards, {});
  ASSERT_EQ(merged.states.size(), 7u);
  for (std::size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(merged.states[i].plan_index, i);
  }
  EXPECT_FALSE(merged.shard);
  shards.pop_back();
  EXPECT_NE(error_of([&] { (void)merge_plans(shards, {}); }).find("shard 0 of 3 is missing"),
            std::string::npos);
}

TEST(shard_merge, a_plan_file_is_told_from_a_result_file) {
  EXPECT_TRUE(looks_like_plan(R"({"kind": "kerntime_plan"})"));
  EXPECT_FALSE(looks_like_plan(R"({"json_schema_version": 1})"));
  EXPECT_FALSE(looks_like_plan("not json"));
  EXPECT_NE(error_of([] {
              (void)parse_plan(R"({"kind": "kerntime_plan"})", "p.json");
            }).find("p.json is not a kerntime plan"),
            std::string::npos);
}

} // namespace
} // namespace kerntime::detail
