// The markdown table keeps up: a SOL column (the share of the bound the roofline names), an "of
// achievable" column with a calibration, the energy per iteration, and the detail lines, from a
// real result rendered by the real writer.
#include <sstream>

#include <gtest/gtest.h>

#include "kerntime/report.hpp"

namespace kerntime {
namespace {

benchmark_run gemm_run() {
  measurement_result r;
  r.latency_ns = 175488;
  r.telemetry.available = true;
  r.energy.available = true;
  r.energy.joules_per_iteration = 0.161812;
  r.energy.average_watts = 436.1;
  benchmark_run run;
  run.benchmark = "gemm_bf16";
  run.axes = {{"size", "4096"}};
  run.state_name = "gemm_bf16/size=4096";
  run.flops = 2.0 * 4096 * 4096 * 4096;
  run.flops_precision = flop_precision::bf16_tensor;
  run.result = r;
  run.sol = speed_of_light{flop_precision::bf16_tensor,
                           1070.53056e12,
                           4.814304e12,
                           73.158,
                           11.915,
                           roofline_bound::compute,
                           128384.2,
                           "table sm_90: 132 SMs × 1980 MHz × FLOP/clk/SM",
                           achievable_speed_of_light{789.5e12, 4.29e12, 99.2, 13.4, "cal.json"},
                           {}};
  return run;
}

std::string markdown_of(const std::vector<benchmark_run>& runs) {
  std::ostringstream out;
  make_markdown_writer()->print(out, run_context{}, runs);
  return out.str();
}

TEST(MarkdownSpeedOfLight, the_table_shows_sol_achievable_and_energy) {
  const std::string md = markdown_of({gemm_run()});
  EXPECT_NE(md.find("| size | latency | stdev | CV | TFLOP/s | SOL | of achievable | energy/iter "
                    "| backend |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 73.2% compute | 99.2% compute | 161.812 mJ | cupti |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("Speed of light: roofline 128.384 µs (compute-bound; peaks bf16_tensor 1070.5 "
                    "TFLOP/s, DRAM 4814.3 GB/s); compute 73.2%, memory 11.9%; of achievable "
                    "(cal.json): compute 99.2%, memory 13.4%"),
            std::string::npos)
      << md;
}

TEST(MarkdownSpeedOfLight, no_declared_work_and_no_energy_add_no_columns) {
  benchmark_run run = gemm_run();
  run.sol.reset();
  run.result->energy = {};
  run.result->energy.unavailable_reason = "NVML gives no total-energy counter for this GPU";
  const std::string md = markdown_of({run});
  EXPECT_EQ(md.find("SOL"), std::string::npos) << md;
  EXPECT_EQ(md.find("energy/iter"), std::string::npos) << md;
}

} // namespace
} // namespace kerntime
