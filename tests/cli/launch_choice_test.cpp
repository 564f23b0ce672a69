// `kerntime run --cuda-graph[=on|off|both]`: the flag's values, the both-ways plan (each state
// twice, named STATE/launch=stream and STATE/launch=graph) and the launch each state's benchmark
// is given, through the real command line on CPU-only benchmarks that report what they got.

#include "cli/launch_choice.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "cli/run_cli.hpp"
#include "supervise/exit_codes.hpp"

namespace kerntime::detail {
namespace {

// Each state skips with the launch its protocol names, so the output shows what it was given.
benchmark_registry reporting_registry() {
  benchmark_registry registry;
  registry.add("op", [](state& s) { s.skip(std::string(to_string(s.get_protocol().launch))); })
      .add_int_axis("N", {1, 2});
  return registry;
}

TEST(launch_choice, the_flag_alone_or_on_is_graph_off_is_stream_and_both_is_both) {
  EXPECT_EQ(parse_launch_choice(""), launch_choice::graph);
  EXPECT_EQ(parse_launch_choice("on"), launch_choice::graph);
  EXPECT_EQ(parse_launch_choice("off"), launch_choice::stream);
  EXPECT_EQ(parse_launch_choice("both"), launch_choice::both);
  try {
    (void)parse_launch_choice("graph-ish");
    ADD_FAILURE() << "an unknown value was accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--cuda-graph takes on, off or both"), std::string::npos)
        << e.what();
  }
}

TEST(launch_choice, both_splits_every_state_into_a_stream_and_a_graph_state_named_by_an_axis) {
  const auto registry = reporting_registry();
  const state_plan plan = plan_states(registry, {}, std::nullopt);
  const state_plan split = split_by_launch(plan);
  ASSERT_EQ(split.states.size(), 4u);
  const char* names[] = {"op/N=1/launch=stream", "op/N=1/launch=graph", "op/N=2/launch=stream",
                         "op/N=2/launch=graph"};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(split.states[i].name, names[i]);
    EXPECT_EQ(split.states[i].launch, i % 2 == 0 ? launch_mode::stream : launch_mode::graph);
    EXPECT_EQ(split.states[i].axis_texts.back().first, "launch");
  }
  ASSERT_EQ(split.benchmarks.size(), 1u);
  EXPECT_EQ(split.benchmarks[0].axes.back().name, "launch");
  EXPECT_EQ(split.benchmarks[0].axes.back().strings(),
            (std::vector<std::string>{"stream", "graph"}));
}

TEST(launch_choice, both_refuses_a_benchmark_that_has_its_own_launch_axis) {
  benchmark_registry registry;
  registry.add("op", [](state& s) { s.skip("x"); }).add_string_axis("launch", {"a"});
  const state_plan plan = plan_states(registry, {}, std::nullopt);
  try {
    (void)split_by_launch(plan);
    ADD_FAILURE() << "the axis clash was not refused";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("has an axis named launch"), std::string::npos)
        << e.what();
  }
}

TEST(launch_choice, each_state_of_a_run_is_given_the_launch_the_flag_asked_for) {
  const auto registry = reporting_registry();
  const auto skipped_with = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "run");
    const auto result = run_cli(registry, args, true);
    EXPECT_EQ(result.exit_code, exit_ok) << result.err;
    return result.out;
  };
  const std::string plain = skipped_with({});
  EXPECT_NE(plain.find("skipped: stream"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("skipped: graph"), std::string::npos) << plain;
  const std::string graph = skipped_with({"--cuda-graph"});
  EXPECT_NE(graph.find("skipped: graph"), std::string::npos) << graph;
  EXPECT_EQ(graph.find("skipped: stream"), std::string::npos) << graph;
  EXPECT_NE(skipped_with({"--cuda-graph=off"}).find("skipped: stream"), std::string::npos);
  const std::string both = skipped_with({"--cuda-graph=both"});
  EXPECT_NE(both.find("### `op/N=2/launch=stream`\n\nskipped: stream"), std::string::npos) << both;
  EXPECT_NE(both.find("### `op/N=2/launch=graph`\n\nskipped: graph"), std::string::npos) << both;
}

TEST(launch_choice, an_unknown_value_is_bad_input) {
  const auto registry = reporting_registry();
  const auto result = run_cli(registry, {"run", "--cuda-graph=sometimes"}, true);
  EXPECT_EQ(result.exit_code, exit_bad_input);
  EXPECT_NE(result.err.find("--cuda-graph takes on, off or both (got 'sometimes')"),
            std::string::npos)
      << result.err;
}

} // namespace
} // namespace kerntime::detail
