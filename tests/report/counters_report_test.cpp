// Every output carries the counter pass (docs/counters.md, docs/report-formats.md): the sample
// runs' last two states asked for counters, measured on one (a 256 MiB copy at 89 % of DRAM peak
// and a bf16 GEMM) and refused by the driver on the other; the states before them asked for none
// and read exactly as before counters existed.

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "counters/counters_summary.hpp"
#include "render.hpp"
#include "report/detail/counters_text.hpp"
#include "report/detail/html_text.hpp"
#include "report/detail/text.hpp"

namespace kerntime::test {
namespace {

using nlohmann::json;

const benchmark_run& measured_state(const std::vector<benchmark_run>& runs) {
  return runs.at(runs.size() - 2);
}

const benchmark_run& unavailable_state(const std::vector<benchmark_run>& runs) {
  return runs.back();
}

std::string print(report_writer& writer, const std::vector<benchmark_run>& runs) {
  std::ostringstream out;
  writer.print(out, sample_context(), runs);
  return out.str();
}

// The lines of `text` from the one starting with `from` up to the next blank line.
std::string block_after(const std::string& text, const std::string& from) {
  const auto at = text.find(from);
  if (at == std::string::npos) {
    return {};
  }
  return text.substr(at, text.find("\n\n", at) - at);
}

TEST(CountersReport, TheJsonCountersBlockReadsBackValueForValue) {
  auto runs = sample_runs();
  runs.at(runs.size() - 2).result->counters.mismatches = {
      "kernel_without_range: `fill<int>` (1 launch)"};
  const result_set set = parse_result_set(print(*make_json_writer(), runs), "counters.json");
  ASSERT_EQ(set.runs.size(), runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].result) {
      SCOPED_TRACE(runs[i].state_name);
      // Every field, the derived values and their implausible notes included (operator==).
      EXPECT_EQ(set.runs[i].result->counters, runs[i].result->counters);
      EXPECT_EQ(set.runs[i].result->protocol_used.counters, runs[i].result->protocol_used.counters);
      EXPECT_EQ(set.runs[i].result->protocol_used.metrics, runs[i].result->protocol_used.metrics);
    }
  }
}

TEST(CountersReport, TheJsonBlockHoldsTheStatusAloneWhenNotRequestedAndOnlyTheDerivedValuesSet) {
  const auto runs = sample_runs();
  const auto document = json::parse(render(*make_json_writer()));
  const json& first = document.at("runs").at(0).at("result");
  EXPECT_EQ(first.at("counters"), json({{"status", "not_requested"}}));
  EXPECT_EQ(first.at("protocol").at("counters"), false);
  EXPECT_EQ(first.at("protocol").at("metrics"), json::array());

  const json& measured = document.at("runs").at(runs.size() - 2).at("result").at("counters");
  EXPECT_EQ(measured.at("status"), "measured");
  EXPECT_FALSE(measured.contains("reason"));
  EXPECT_EQ(measured.at("chip"), "GH100");
  EXPECT_EQ(measured.at("kernels").at(0).at("name"), copy_kernel_name());
  EXPECT_EQ(measured.at("kernels").at(0).at("metrics").at("dram__bytes_read.sum"), 268436480.0);
  EXPECT_EQ(measured.at("kernels").at(0).at("derived").at("bound"), "memory");
  EXPECT_EQ(measured.at("kernels").at(1).at("derived").at("bound"), "compute");
  EXPECT_EQ(measured.at("derived").at("dram_bytes"), 629146624.0);

  const json& unavailable = document.at("runs").back().at("result").at("counters");
  EXPECT_EQ(unavailable.at("status"), "unavailable");
  EXPECT_EQ(unavailable.at("reason"), unavailable_state(runs).result->counters.reason);
  EXPECT_EQ(unavailable.at("derived"), json::object()); // nothing derived: no key at all
}

TEST(CountersReport, AFileFromBeforeCountersReadsAsNotRequested) {
  auto document = json::parse(render(*make_json_writer()));
  for (json& run : document.at("runs")) {
    if (!run.at("result").is_null()) {
      run.at("result").erase("counters");
      run.at("result").at("protocol").erase("counters");
      run.at("result").at("protocol").erase("metrics");
    }
  }
  const result_set set = parse_result_set(document.dump(), "old.json");
  for (const auto& run : set.runs) {
    if (run.result) {
      EXPECT_EQ(run.result->counters.status, counters_status::not_requested);
      EXPECT_TRUE(run.result->counters.kernels.empty());
      EXPECT_FALSE(run.result->protocol_used.counters);
      EXPECT_TRUE(run.result->protocol_used.metrics.empty());
    }
  }
}

TEST(CountersReport, AnUnknownStatusIsRefusedNamingIt) {
  auto document = json::parse(render(*make_json_writer()));
  document.at("runs").back().at("result").at("counters").at("status") = "half_measured";
  try {
    static_cast<void>(parse_result_set(document.dump(), "edited.json"));
    FAIL() << "read without complaint";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'half_measured' is not a known status"),
              std::string::npos)
        << e.what();
  }
}

// JSON has no NaN: a metric CUPTI could not evaluate is written as null and read back as NaN.
TEST(CountersReport, AMetricWithoutAValueIsNullInJsonAndNanWhenRead) {
  auto runs = sample_runs();
  auto& counters = runs.at(runs.size() - 2).result->counters;
  counters.kernels[1].metrics["lts__t_sector_hit_rate.pct"] = std::nan("");
  const std::string text = print(*make_json_writer(), runs);
  const auto document = json::parse(text);
  EXPECT_TRUE(document.at("runs")
                  .at(runs.size() - 2)
                  .at("result")
                  .at("counters")
                  .at("kernels")
                  .at(1)
                  .at("metrics")
                  .at("lts__t_sector_hit_rate.pct")
                  .is_null());
  const result_set set = parse_result_set(text, "nan.json");
  EXPECT_TRUE(std::isnan(set.runs.at(runs.size() - 2)
                             .result->counters.kernels[1]
                             .metrics.at("lts__t_sector_hit_rate.pct")));
}

TEST(CountersReport, MarkdownBreakdownGainsTheCounterColumnsOfAMeasuredState) {
  const std::string md = render(*make_markdown_writer());
  const std::string table =
      block_after(md, "| kernel | kind | calls/iter | mean | median | share | "
                      "DRAM bytes |");
  ASSERT_FALSE(table.empty()) << md;
  EXPECT_NE(table.find("| DRAM bytes | DRAM % | L2 hit % | tensor % | bound |"), std::string::npos);
  EXPECT_NE(table.find("| 512.0 MiB | 89.0 | 49.8 | 0.0 | memory |"), std::string::npos) << table;
  EXPECT_NE(table.find("| 88.0 MiB | 12.4 | 78.3 | 62.5 | compute |"), std::string::npos) << table;
  EXPECT_NE(md.find("Counters: GH100, 2 replay passes in 0.412 s; the iteration: DRAM 600.0 MiB"),
            std::string::npos);
}

// Out-of-range counters (L2 hit rates of 149.6 % on the H200's radix-sort kernels) are marked in
// the table and listed with why; one DRAM figure a line.
TEST(CountersReport, MarkdownMarksCounterArtefactsAndSaysOneDramFigure) {
  auto runs = sample_runs();
  auto& measured = runs.at(runs.size() - 2);
  auto& kernel = measured.result->counters.kernels.front();
  kernel.metrics[std::string(detail::l2_hit_rate_metric)] = 149.6;
  kernel.derived.implausible = detail::implausible_counters(kernel.metrics); // as derive does
  const std::string md = print(*make_markdown_writer(), runs);
  EXPECT_NE(md.find("| 149.6 (artefact) |"), std::string::npos) << md;
  const auto heading =
      md.find("Counter artefacts (values outside their physical range, not measurements):\n\n- ");
  ASSERT_NE(heading, std::string::npos) << md;
  const std::string list = md.substr(heading, md.find("\n\n", md.find("\n- ", heading)) - heading);
  EXPECT_NE(list.find("lts__t_sector_hit_rate.pct = 149.6 % is outside 0-100 %"), std::string::npos)
      << list;
  const std::string line = block_after(md, "Counters: GH100");
  ASSERT_NE(line.find("DRAM 600.0 MiB"), std::string::npos) << line;
  EXPECT_EQ(line.find("DRAM 600.0 MiB"), line.rfind("DRAM")) << "one DRAM figure: " << line;
  // Read back from JSON, the artefact is still said.
  std::ostringstream json_text;
  make_json_writer()->print(json_text, sample_context(), runs);
  const result_set set = parse_result_set(json_text.str(), "counters.json");
  EXPECT_EQ(set.runs.at(runs.size() - 2).result->counters.kernels.front().derived.implausible,
            kernel.derived.implausible);
}

TEST(CountersReport, MarkdownSaysInOneLineWhyCountersAreUnavailable) {
  const auto runs = sample_runs();
  const std::string md = render(*make_markdown_writer());
  const std::string line = "counters unavailable: " +
                           detail::markdown_text(unavailable_state(runs).result->counters.reason);
  EXPECT_NE(md.find("\n" + line + "\n"), std::string::npos);
  // The unavailable state's breakdown has no counter columns.
  const auto at = md.find(detail::markdown_code_span(unavailable_state(runs).state_name, 96));
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(md.find("DRAM bytes", at), std::string::npos);
}

TEST(CountersReport, OnlyColumnsWithDataAreShown) {
  auto runs = sample_runs();
  auto& counters = runs.at(runs.size() - 2).result->counters;
  for (auto& k : counters.kernels) {
    k.metrics.erase(std::string(detail::tensor_pipe_metric));
    k.derived.bound.reset();
  }
  counters.kernels[0].metrics.erase(std::string(detail::l2_hit_rate_metric)); // one kernel has it
  const std::string md = print(*make_markdown_writer(), runs);
  EXPECT_NE(md.find("| share | DRAM bytes | DRAM % | L2 hit % |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("| 512.0 MiB | 89.0 | \xE2\x80\x93 |\n"), std::string::npos);
  EXPECT_EQ(md.find("tensor %"), std::string::npos);
}

TEST(CountersReport, CsvCarriesTheIterationsDerivedValuesAndTheStatus) {
  const std::string csv = render(*make_csv_writer());
  EXPECT_NE(csv.find(",dram_bytes,dram_percent_of_peak,compute_percent_of_peak,counters_bound,"
                     "counters_status,"),
            std::string::npos);
  EXPECT_NE(csv.find(",629146624,66.100,18.700,memory,measured,"), std::string::npos);
  EXPECT_NE(csv.find(",,,,,unavailable,"), std::string::npos);
  EXPECT_NE(csv.find(",,,,,not_requested,"), std::string::npos);
}

TEST(CountersReport, JunitCarriesTheCountersAsPropertiesBesideEachKernel) {
  const auto runs = sample_runs();
  const std::string xml = render(*make_junit_writer());
  for (const char* property : {R"(<property name="counters.status" value="measured"/>)",
                               R"(<property name="counters.chip" value="GH100"/>)",
                               R"(<property name="counters.passes" value="2"/>)",
                               R"(<property name="counters.dram_bytes" value="629146624"/>)",
                               R"(<property name="counters.bound" value="memory"/>)",
                               R"(<property name="kernel.1.dram_bytes" value="536871936"/>)",
                               R"(<property name="kernel.1.l2_hit_pct" value="49.800"/>)",
                               R"(<property name="kernel.2.tensor_pct" value="62.500"/>)",
                               R"(<property name="kernel.2.bound" value="compute"/>)",
                               R"(<property name="counters.status" value="unavailable"/>)"}) {
    EXPECT_NE(xml.find(property), std::string::npos) << property;
  }
  EXPECT_NE(xml.find(R"(<property name="counters.unavailable" value=")" +
                     detail::xml_escape(unavailable_state(runs).result->counters.reason) + "\"/>"),
            std::string::npos);
  // The states that asked for none have no counters property.
  const auto measured = xml.find(detail::xml_escape(measured_state(runs).state_name));
  EXPECT_EQ(xml.find("counters.", 0), xml.find("counters.", measured));
}

TEST(CountersReport, GbenchRowsCarryTheCountersAsUserCounters) {
  const auto document = json::parse(render(*make_gbench_json_writer()));
  const auto runs = sample_runs();
  int rows_with_counters = 0;
  for (const auto& row : document.at("benchmarks")) {
    if (!row.contains("dram_bytes")) {
      EXPECT_FALSE(row.contains("dram_percent_of_peak")) << row.at("name");
      continue;
    }
    ++rows_with_counters;
    EXPECT_EQ(row.at("run_name"), measured_state(runs).state_name);
    EXPECT_EQ(row.at("dram_bytes"), 629146624.0);
    EXPECT_EQ(row.at("dram_percent_of_peak"), 66.1);
    EXPECT_EQ(row.at("compute_percent_of_peak"), 18.7);
  }
  EXPECT_EQ(rows_with_counters, 4); // two trials, the mean and the median
}

TEST(CountersReport, HtmlShowsEachKernelsCountersOrTheEscapedReason) {
  auto runs = sample_runs();
  runs.back().result->counters.reason = "<script>alert(3)</script> & \"driver\"";
  std::ostringstream out;
  make_html_writer()->print(out, sample_context(), runs);
  const std::string html = out.str();
  EXPECT_NE(html.find("<th>kernel</th><th>launches</th><th>DRAM bytes</th><th>DRAM %</th>"
                      "<th>L2 hit %</th><th>tensor %</th><th>bound</th>"),
            std::string::npos);
  EXPECT_NE(html.find(detail::html_escape(copy_kernel_name()) +
                      "</td><td class=\"num\">1</td><td class=\"num\">512.0 MiB</td><td "
                      "class=\"num\">89.0</td>"),
            std::string::npos);
  EXPECT_NE(html.find("Counters unavailable: &lt;script&gt;alert(3)&lt;/script&gt; &amp; "
                      "&quot;driver&quot;</p>"),
            std::string::npos);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  // One counters figure each for the two states that asked; none for the others.
  std::size_t figures = 0;
  for (auto at = html.find("<figure class=\"counters\">"); at != std::string::npos;
       at = html.find("<figure class=\"counters\">", at + 1)) {
    ++figures;
  }
  EXPECT_EQ(figures, 2U);
}

TEST(CountersReport, DramBytesAreShownInBinaryUnits) {
  EXPECT_EQ(detail::bytes_text(812), "812 B");
  EXPECT_EQ(detail::bytes_text(536871936), "512.0 MiB");
  EXPECT_EQ(detail::bytes_text(3.0 * 1024 * 1024 * 1024), "3.0 GiB");
}

} // namespace
} // namespace kerntime::test
