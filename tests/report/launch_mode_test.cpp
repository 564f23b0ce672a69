// Every output says how the work was launched: the JSON protocol's "launch" (read back, and read
// as stream from files written before graph mode), a markdown "launch" column when a state ran as
// a graph, a JUnit property and the Google Benchmark label.

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "kerntime/report.hpp"
#include "sample_runs.hpp"

namespace kerntime::test {
namespace {

std::vector<benchmark_run> graph_runs() {
  auto runs = sample_runs();
  for (auto& run : runs) {
    if (run.result) {
      run.result->protocol_used.launch = launch_mode::graph;
    }
  }
  return runs;
}

std::string print(report_writer& writer, const std::vector<benchmark_run>& runs) {
  std::ostringstream out;
  writer.print(out, sample_context(), runs);
  return out.str();
}

TEST(LaunchMode, TheJsonProtocolNamesTheLaunchAndReadsItBack) {
  const auto runs = graph_runs();
  const std::string text = print(*make_json_writer(), runs);
  const auto document = nlohmann::json::parse(text);
  ASSERT_TRUE(runs.front().result.has_value());
  EXPECT_EQ(document.at("runs").at(0).at("result").at("protocol").at("launch"), "graph");
  const result_set read = parse_result_set(text, "graph.json");
  ASSERT_TRUE(read.runs.front().result.has_value());
  EXPECT_EQ(read.runs.front().result->protocol_used.launch, launch_mode::graph);
}

TEST(LaunchMode, AFileWrittenBeforeGraphModeReadsAsStreamLaunches) {
  auto document = nlohmann::json::parse(print(*make_json_writer(), graph_runs()));
  auto& protocol = document.at("runs").at(0).at("result").at("protocol");
  protocol.erase("launch");
  const result_set read = parse_result_set(document.dump(), "old.json");
  EXPECT_EQ(read.runs.front().result->protocol_used.launch, launch_mode::stream);
  protocol["launch"] = "teleport";
  try {
    static_cast<void>(parse_result_set(document.dump(), "edited.json"));
    ADD_FAILURE() << "an unknown launch was read";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'teleport' is not a known launch"), std::string::npos)
        << e.what();
  }
}

TEST(LaunchMode, MarkdownGivesGraphRunsALaunchColumnAndStreamRunsNone) {
  const std::string graph = print(*make_markdown_writer(), graph_runs());
  EXPECT_NE(graph.find("| backend | launch |"), std::string::npos) << graph;
  EXPECT_NE(graph.find("| cupti | graph |"), std::string::npos) << graph;
  const std::string stream = print(*make_markdown_writer(), sample_runs());
  EXPECT_EQ(stream.find("| launch |"), std::string::npos) << stream;
}

TEST(LaunchMode, BothWaysRunsShowTheirLaunchAxisOnceNotASecondColumn) {
  auto runs = graph_runs();
  for (auto& run : runs) {
    run.axes.emplace_back("launch", "graph");
  }
  const std::string text = print(*make_markdown_writer(), runs);
  EXPECT_NE(text.find("| launch |"), std::string::npos) << text;
  EXPECT_EQ(text.find("| launch | latency"), text.find("| launch |")) << text;
  EXPECT_EQ(text.find("| backend | launch |"), std::string::npos) << text;
}

TEST(LaunchMode, JunitAndGoogleBenchmarkNameGraphLaunches) {
  const auto runs = graph_runs();
  EXPECT_NE(print(*make_junit_writer(), runs).find(R"(<property name="launch" value="graph"/>)"),
            std::string::npos);
  EXPECT_NE(print(*make_gbench_json_writer(), runs).find("backend=cupti; launch=graph; "),
            std::string::npos);
  EXPECT_EQ(print(*make_junit_writer(), sample_runs()).find(R"(name="launch")"), std::string::npos);
}

TEST(LaunchMode, CsvHasALaunchColumnForEveryRow) {
  const std::string graph = print(*make_csv_writer(), graph_runs());
  const std::string header = graph.substr(0, graph.find('\n'));
  EXPECT_NE(header.find(",timing_backend,backend_reason,launch,"), std::string::npos) << header;
  EXPECT_NE(graph.find(",cupti,"), std::string::npos);
  EXPECT_NE(graph.find(",graph,"), std::string::npos) << graph;
  EXPECT_EQ(print(*make_csv_writer(), sample_runs()).find(",graph,"), std::string::npos);
}

TEST(LaunchMode, HtmlGivesGraphRunsALaunchColumnAndStreamRunsNone) {
  const std::string graph = print(*make_html_writer(), graph_runs());
  EXPECT_NE(graph.find("<th>launch</th><th>backend</th>"), std::string::npos);
  EXPECT_NE(graph.find("<td>graph</td><td>cupti</td>"), std::string::npos);
  EXPECT_EQ(print(*make_html_writer(), sample_runs()).find("<th>launch</th>"), std::string::npos);
}

} // namespace
} // namespace kerntime::test
