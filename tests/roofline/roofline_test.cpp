// The speed-of-light arithmetic: the peak table against figures computed by hand from NVIDIA's
// documents (docs/speed-of-light.md), the share of the peak and the bound for declared work, the
// --peaks file and its errors, and the calibration file read back.
#include <gtest/gtest.h>

#include "kerntime/errors.hpp"
#include "report/runs_speed_of_light.hpp"
#include "roofline/calibration_file.hpp"
#include "roofline/peak_table.hpp"
#include "roofline/peaks_file.hpp"
#include "roofline/speed_of_light.hpp"

namespace kerntime::detail {
namespace {

// H200 SXM as the H200 of docs/speed-of-light.md reports itself: sm_90, 132 SMs, maximum SM clock
// 1980 MHz (NVML), memory clock 3201 MHz on a 6016-bit bus (cudaDevAttrMemoryClockRate,
// cudaDevAttrGlobalMemoryBusWidth; not the 6144 bits of six full HBM stacks).
constexpr peak_inputs h200{9, 0, 132, 1980, 3201, 6016};
// H100 SXM5: as H200, HBM3 at 2619 MHz on a 5120-bit bus.
constexpr peak_inputs h100{9, 0, 132, 1980, 2619, 5120};
// A100 SXM4 40 GB: sm_80, 108 SMs, 1410 MHz, HBM2 at 1215 MHz on a 5120-bit bus.
constexpr peak_inputs a100{8, 0, 108, 1410, 1215, 5120};
// A10: sm_86 (GA102), 72 SMs, 1695 MHz, GDDR6 at 6251 MHz on a 384-bit bus.
constexpr peak_inputs a10{8, 6, 72, 1695, 6251, 384};
// Jetson AGX Orin: sm_87, 16 SMs, 1300 MHz, LPDDR5 at 3200 MHz on a 256-bit bus.
constexpr peak_inputs orin{8, 7, 16, 1300, 3200, 256};

double peak(const device_peaks& p, flop_precision precision) {
  return p.flops_per_s.at(precision);
}

TEST(PeakTable, H200PeaksAreTheHandComputedOnes) {
  const auto p = table_peaks(h200);
  ASSERT_TRUE(p);
  // 132 SMs × 1.98 GHz = 261.36e9 SM-clocks per second.
  // bf16/fp16 tensor: 4096 FLOP/clk/SM (4 tensor cores × 512 dense FMA × 2); NVIDIA's 989.4
  // TFLOP/s is the same figure at 1830 MHz (132 × 1.83e9 × 4096 = 989.4e12).
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::bf16_tensor), 4096 * 261.36e9); // 1070.53 TFLOP/s
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::fp16_tensor), 4096 * 261.36e9);
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::tf32_tensor), 2048 * 261.36e9); // 535.27
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::fp8_tensor), 8192 * 261.36e9);  // 2141.06
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::int8_tensor), 8192 * 261.36e9);
  // fp64: 64 FP64 lanes × 2 = 128 → 33.45 TFLOP/s (NVIDIA: 34); fp64 tensor and fp32: 256 →
  // 66.91 TFLOP/s (NVIDIA: 67).
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::fp64), 128 * 261.36e9);
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::fp64_tensor), 256 * 261.36e9);
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::fp32), 256 * 261.36e9);
  // DRAM: 2 × 3201e6 × 6016 / 8 = 4.814304e12 B/s (NVIDIA: 4.8 TB/s).
  ASSERT_TRUE(p->bytes_per_s);
  EXPECT_DOUBLE_EQ(*p->bytes_per_s, 4.814304e12);
  EXPECT_NE(p->source.find("sm_90"), std::string::npos);
  EXPECT_NE(p->source.find("132 SMs"), std::string::npos);
}

TEST(PeakTable, H100DramIsTheHandComputedOne) {
  const auto p = table_peaks(h100);
  ASSERT_TRUE(p);
  // 2 × 2619e6 × 5120 / 8 = 3.35232e12 B/s (NVIDIA: 3.35 TB/s).
  EXPECT_DOUBLE_EQ(*p->bytes_per_s, 3.35232e12);
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::bf16_tensor), 4096 * 261.36e9);
}

TEST(PeakTable, A100PeaksAreTheHandComputedOnes) {
  const auto p = table_peaks(a100);
  ASSERT_TRUE(p);
  // 108 SMs × 1.41 GHz = 152.28e9 SM-clocks per second; NVIDIA's A100 figures in brackets.
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::bf16_tensor), 2048 * 152.28e9); // 311.9 [312]
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::tf32_tensor), 1024 * 152.28e9); // 155.9 [156]
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::int8_tensor), 4096 * 152.28e9); // 623.7 [624]
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::fp64_tensor), 128 * 152.28e9);  // 19.49 [19.5]
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::fp64), 64 * 152.28e9);          // 9.75 [9.7]
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::fp32), 128 * 152.28e9);         // 19.49 [19.5]
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::fp16), 512 * 152.28e9);         // 78.0 [78]
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::bf16), 256 * 152.28e9);         // 39.0 [39]
  EXPECT_EQ(p->flops_per_s.count(flop_precision::fp8_tensor), 0u);          // no fp8 units
  // 2 × 1215e6 × 5120 / 8 = 1.5552e12 B/s [1555 GB/s].
  EXPECT_DOUBLE_EQ(*p->bytes_per_s, 1.5552e12);
}

TEST(PeakTable, A10PeaksAreTheHandComputedOnes) {
  const auto p = table_peaks(a10);
  ASSERT_TRUE(p);
  // 72 SMs × 1.695 GHz = 122.04e9 SM-clocks per second; NVIDIA's A10 datasheet in brackets.
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::fp32), 256 * 122.04e9);         // 31.24 [31.2]
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::tf32_tensor), 512 * 122.04e9);  // 62.48 [62.5]
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::bf16_tensor), 1024 * 122.04e9); // 124.97 [125]
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::fp16_tensor), 1024 * 122.04e9);
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::int8_tensor), 2048 * 122.04e9); // 249.9 [250]
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::fp16), 256 * 122.04e9);         // as fp32 on GA10x
  EXPECT_DOUBLE_EQ(peak(*p, flop_precision::fp64), 4 * 122.04e9);           // 1/64 of fp32
  // GA10x has neither FP64 tensor cores (GA100 only) nor FP8 (Ada on).
  EXPECT_EQ(p->flops_per_s.count(flop_precision::fp64_tensor), 0u);
  EXPECT_EQ(p->flops_per_s.count(flop_precision::fp8_tensor), 0u);
  // 2 × 6251e6 × 384 / 8 = 600.096e9 B/s [600 GB/s].
  EXPECT_DOUBLE_EQ(*p->bytes_per_s, 600.096e9);
  EXPECT_NE(p->source.find("table sm_86: 72 SMs"), std::string::npos) << p->source;
  EXPECT_EQ(no_table_peaks_reason(a10), "");
}

TEST(PeakTable, EveryArchitectureOfTheDefaultBuildHasARow) {
  // CMakeLists.txt's KERNTIME_DEFAULT_CUDA_ARCHITECTURES: a GPU kerntime runs on has its peaks.
  for (const int arch : {80, 86, 89, 90, 100, 120}) {
    EXPECT_TRUE(flops_per_clock_per_sm(arch / 10, arch % 10, flop_precision::fp32)) << arch;
  }
}

TEST(PeakTable, AnArchitectureNotInTheTableHasNoPeaksAndSaysWhy) {
  EXPECT_FALSE(table_peaks(orin));
  EXPECT_EQ(no_table_peaks_reason(orin),
            "kerntime's peak table has no row for sm_87 (it has sm_80, sm_86, sm_89, sm_90, "
            "sm_100, sm_120); give this GPU's peaks with `kerntime run --peaks FILE` "
            "(docs/speed-of-light.md)");
  const peak_inputs no_clock{9, 0, 132, 0, 3201, 6144};
  EXPECT_FALSE(table_peaks(no_clock));
  EXPECT_EQ(no_table_peaks_reason(no_clock),
            "the SM count or the maximum SM clock of this sm_90 GPU is unknown, so the table's "
            "peaks cannot be computed; give them with `kerntime run --peaks FILE` "
            "(docs/speed-of-light.md)");
  EXPECT_EQ(no_table_peaks_reason(h200), "");
}

TEST(PeakTable, NoMemoryFactsMeanNoDramPeak) {
  const auto p = table_peaks({9, 0, 132, 1980, 0, 0});
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->bytes_per_s);
}

// The suite's gemm_bf16 at size 4096 on the H200 (README sample: 175.488 µs).
TEST(SpeedOfLight, Bf16Gemm4096IsComputeBound) {
  const double n = 4096;
  const declared_work work{2 * n * n * n, flop_precision::bf16_tensor, 3 * n * n * 2, 175488};
  const auto sol = compute_speed_of_light(work, *table_peaks(h200));
  ASSERT_TRUE(sol);
  // 137.44e9 FLOP / 175.488 µs = 783.18 TFLOP/s; / 1070.53 = 73.16 %.
  EXPECT_NEAR(*sol->compute_pct, 73.158, 0.01);
  // 100.66e6 B / 175.488 µs = 573.62 GB/s; / 4814.3 = 11.91 %.
  EXPECT_NEAR(*sol->memory_pct, 11.915, 0.01);
  EXPECT_EQ(sol->bound, roofline_bound::compute);
  // max(137.44e9 / 1070.53e12, 100.66e6 / 4.8143e12) = max(128.38 µs, 20.91 µs).
  EXPECT_NEAR(sol->roofline_ns, 128384, 1);
  EXPECT_EQ(sol->precision, flop_precision::bf16_tensor);
  EXPECT_FALSE(sol->achievable);
}

TEST(SpeedOfLight, A256MiBCopyIsMemoryBound) {
  const double bytes = 2.0 * (256 << 20); // read + written
  const declared_work work{std::nullopt, std::nullopt, bytes, 134000};
  const auto sol = compute_speed_of_light(work, *table_peaks(h200));
  ASSERT_TRUE(sol);
  EXPECT_EQ(sol->bound, roofline_bound::memory);
  EXPECT_FALSE(sol->compute_pct);
  // 536.87e6 B / 134 µs = 4006.5 GB/s; / 4814.3 = 83.22 %.
  EXPECT_NEAR(*sol->memory_pct, 83.22, 0.01);
  EXPECT_NEAR(sol->roofline_ns, bytes / 4.814304e12 * 1e9, 1e-6);
}

constexpr std::size_t h200_l2_bytes = 60u << 20u;

// A hot-L2 copy read "SOL 129.6 % memory": the bytes came from L2. Said, not shown as a fact,
// and not called faster than possible: L2 explains it.
TEST(SpeedOfLight, MemoryAboveTheDramPeakOfDataThatFitsInL2SaysTheBytesCameFromL2) {
  const double bytes = 2.0 * (16 << 20);
  const declared_work hot_copy{std::nullopt, std::nullopt, bytes, 5376, h200_l2_bytes};
  const auto sol = compute_speed_of_light(hot_copy, *table_peaks(h200));
  ASSERT_TRUE(sol);
  EXPECT_GT(*sol->memory_pct, 100);
  ASSERT_EQ(sol->notes.size(), 1U) << ::testing::PrintToString(sol->notes);
  EXPECT_NE(sol->notes[0].find("is above the DRAM peak: the data fits in L2"), std::string::npos);
}

TEST(SpeedOfLight, ATimeBelowTheRooflineSaysTheDeclaredWorkOrTheRunIsWrong) {
  const double bytes = 2.0 * (256 << 20);
  // 536.87e6 B at 4814.3 GB/s is 111.5 µs; 90 µs is 19 % below it, and 256 MiB cannot stay in
  // a 60 MiB L2.
  const auto fast = compute_speed_of_light(
      {std::nullopt, std::nullopt, bytes, 90'000, h200_l2_bytes}, *table_peaks(h200));
  ASSERT_TRUE(fast);
  ASSERT_EQ(fast->notes.size(), 1U) << ::testing::PrintToString(fast->notes);
  EXPECT_NE(fast->notes[0].find("the time is 19% below the roofline"), std::string::npos)
      << fast->notes[0];
  EXPECT_NE(fast->notes[0].find("the declared work is wrong or the work did not all run"),
            std::string::npos);
  // Within 5 % of the roofline, and above it, nothing is said.
  for (const double latency_ns : {107'000.0, 134'000.0}) {
    EXPECT_TRUE(
        compute_speed_of_light({std::nullopt, std::nullopt, bytes, latency_ns, h200_l2_bytes},
                               *table_peaks(h200))
            ->notes.empty())
        << latency_ns;
  }
}

TEST(SpeedOfLight, FlopsWithoutAPrecisionCountOnlyTheirBytes) {
  const declared_work work{1e9, std::nullopt, 1e6, 1000};
  const auto sol = compute_speed_of_light(work, *table_peaks(h200));
  ASSERT_TRUE(sol);
  EXPECT_FALSE(sol->compute_pct);
  EXPECT_FALSE(sol->peak_flops_per_s);
  EXPECT_EQ(sol->bound, roofline_bound::memory);
}

TEST(SpeedOfLight, NoDeclaredWorkHasNoSpeedOfLight) {
  EXPECT_FALSE(
      compute_speed_of_light({std::nullopt, std::nullopt, std::nullopt, 1000}, *table_peaks(h200)));
  // fp8 on an A100: no such unit, and no bytes.
  EXPECT_FALSE(compute_speed_of_light({1e9, flop_precision::fp8_tensor, std::nullopt, 1000},
                                      *table_peaks(a100)));
}

TEST(SpeedOfLight, AchievableComesFromTheCalibration) {
  calibration c;
  c.gemm_flops_per_s[flop_precision::bf16_tensor] = 800e12;
  c.copy_bytes_per_s = 4.0e12;
  const declared_work work{800e9, flop_precision::bf16_tensor, 400e6, 2e6}; // 2 ms
  const auto sol = compute_speed_of_light(work, *table_peaks(h200), &c, "cal.json (H200)");
  ASSERT_TRUE(sol && sol->achievable);
  EXPECT_DOUBLE_EQ(*sol->achievable->compute_pct, 50.0); // 400 TFLOP/s of 800
  EXPECT_DOUBLE_EQ(*sol->achievable->memory_pct, 5.0);   // 200 GB/s of 4000
  EXPECT_EQ(sol->achievable->source, "cal.json (H200)");
  // A precision the calibration lacks: its compute share is unknown, never zero.
  const declared_work fp32{1e9, flop_precision::fp32, std::nullopt, 1e6};
  const auto other = compute_speed_of_light(fp32, *table_peaks(h200), &c, "cal.json");
  ASSERT_TRUE(other && other->achievable);
  EXPECT_FALSE(other->achievable->compute_pct);
  EXPECT_FALSE(other->achievable->flops_per_s);
}

TEST(SpeedOfLight, AddedOnlyToOkRunsWithAPeak) {
  measurement_result r;
  r.device = {.compute_capability_major = 9,
              .multiprocessors = 132,
              .peak_sm_clock_khz = 1980000,
              .memory_clock_khz = 3201000,
              .memory_bus_width_bits = 6016};
  r.latency_ns = 1000;
  std::vector<benchmark_run> runs(3);
  runs[0].result = r;
  runs[0].bytes = 1e6;
  runs[1].status = run_status::failed;
  runs[1].bytes = 1e6;
  runs[2].result = r;                                // no declared work
  EXPECT_TRUE(add_speed_of_light(runs, {}).empty()); // an sm_90 GPU has peaks
  ASSERT_TRUE(runs[0].sol);
  EXPECT_NEAR(*runs[0].sol->memory_pct, 100.0 * 1e12 / 4.814304e12, 1e-9); // 1 MB in 1 µs
  EXPECT_FALSE(runs[1].sol);
  EXPECT_FALSE(runs[2].sol);
}

TEST(SpeedOfLight, AGpuWithoutPeaksIsNamedOnceWithWhy) {
  measurement_result r;
  r.device = {.name = "NVIDIA Jetson AGX Orin",
              .compute_capability_major = 8,
              .compute_capability_minor = 7,
              .multiprocessors = 16,
              .peak_sm_clock_khz = 1300000,
              .memory_clock_khz = 3200000,
              .memory_bus_width_bits = 256};
  r.latency_ns = 1000;
  std::vector<benchmark_run> runs(3);
  runs[0].result = r;
  runs[0].bytes = 1e6;
  runs[1].result = r;
  runs[1].flops = 1e9;
  runs[1].flops_precision = flop_precision::fp32;
  runs[2].result = r; // no declared work: nothing to say
  const auto said = add_speed_of_light(runs, {});
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0], "no speed of light on NVIDIA Jetson AGX Orin: " + no_table_peaks_reason(orin));
  EXPECT_FALSE(runs[0].sol);
  EXPECT_FALSE(runs[1].sol);
  // Peaks given with --peaks: a speed of light, nothing to say.
  roofline_settings with_file;
  with_file.overrides = parse_peak_overrides(R"({"bytes_per_s": 204.8e9})", "orin.json");
  EXPECT_TRUE(add_speed_of_light(runs, with_file).empty());
  ASSERT_TRUE(runs[0].sol);
  EXPECT_NEAR(*runs[0].sol->memory_pct, 100.0 * 1e12 / 204.8e9, 1e-9);
}

TEST(SpeedOfLight, MeasuredCounterBandwidthBecomesAFractionOfThePeak) {
  device_peaks peaks;
  peaks.bytes_per_s = 4.8e12;
  counters_summary counters;
  counters.status = counters_status::measured;
  counters.derived.dram_bytes_per_second = 2.4e12;
  counters.kernels.push_back({"copy", 1, {}, {}});
  counters.kernels.back().derived.dram_bytes_per_second = 3.6e12;
  counters.kernels.push_back({"no_bytes", 1, {}, {}});
  add_counter_fractions(counters, peaks);
  EXPECT_DOUBLE_EQ(counters.derived.dram_fraction_of_peak.value_or(-1), 0.5);
  EXPECT_DOUBLE_EQ(counters.kernels[0].derived.dram_fraction_of_peak.value_or(-1), 0.75);
  EXPECT_FALSE(counters.kernels[1].derived.dram_fraction_of_peak);

  counters_summary unavailable;
  unavailable.status = counters_status::unavailable;
  unavailable.derived.dram_bytes_per_second = 1e12;
  add_counter_fractions(unavailable, peaks);
  EXPECT_FALSE(unavailable.derived.dram_fraction_of_peak);
  counters_summary no_peak = counters;
  no_peak.derived.dram_fraction_of_peak.reset();
  add_counter_fractions(no_peak, device_peaks{});
  EXPECT_FALSE(no_peak.derived.dram_fraction_of_peak);
}

TEST(PeaksFile, OverridesReplaceTheTablesFigures) {
  const auto overrides = parse_peak_overrides(
      R"({"flops_per_s": {"bf16_tensor": 989.4e12}, "bytes_per_s": 4.8e12})", "peaks.json");
  const auto peaks = apply_overrides(table_peaks(h200), overrides);
  ASSERT_TRUE(peaks);
  EXPECT_DOUBLE_EQ(peaks->flops_per_s.at(flop_precision::bf16_tensor), 989.4e12);
  EXPECT_DOUBLE_EQ(peaks->flops_per_s.at(flop_precision::fp32), 256 * 261.36e9); // kept
  EXPECT_DOUBLE_EQ(*peaks->bytes_per_s, 4.8e12);
  EXPECT_NE(peaks->source.find("overridden by peaks.json"), std::string::npos);
}

TEST(PeaksFile, GivesPeaksToAGpuTheTableLacks) {
  const auto overrides = parse_peak_overrides(R"({"bytes_per_s": 936e9})", "a6000.json");
  const auto peaks = apply_overrides(std::nullopt, overrides);
  ASSERT_TRUE(peaks);
  EXPECT_EQ(peaks->source, "a6000.json");
  EXPECT_DOUBLE_EQ(*peaks->bytes_per_s, 936e9);
}

std::string error_of(std::string_view text) {
  try {
    (void)parse_peak_overrides(text, "p.json");
  } catch (const invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(PeaksFile, ErrorsNameTheFileTheProblemAndTheFix) {
  EXPECT_NE(error_of("{nope").find("--peaks p.json is not JSON"), std::string::npos);
  const auto unknown = error_of(R"({"flops_per_s": {"bf17": 1e12}})");
  EXPECT_NE(unknown.find("\"bf17\" is not a precision; use one of fp64, fp64_tensor"),
            std::string::npos)
      << unknown;
  EXPECT_NE(error_of(R"({"bytes_per_s": -1})").find("give a number above 0"), std::string::npos);
  EXPECT_NE(error_of(R"({"bytes_per_s": "fast"})").find("give a number above 0"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"byte_per_s": 1e12})").find("unknown key \"byte_per_s\""),
            std::string::npos);
  EXPECT_NE(error_of("[1]").find("not an object"), std::string::npos);
  EXPECT_NE(error_of(R"({"flops_per_s": 5})").find("must map precisions"), std::string::npos);
}

TEST(CalibrationFile, ReadsBackWhatItWrote) {
  calibration c;
  c.kerntime_version = "2.0.0";
  c.date = "2025-06-01T12:00:00Z";
  c.device_name = "NVIDIA H200";
  c.device_uuid = "GPU-1234";
  c.compute_capability_major = 9;
  c.multiprocessors = 132;
  c.sm_clock_mhz = 1965.5;
  c.copy_bytes = 1 << 30;
  c.copy_bytes_per_s = 4.1e12;
  c.gemm_size = 8192;
  c.gemm_flops_per_s[flop_precision::bf16_tensor] = 7.5e14;
  c.gemm_flops_per_s[flop_precision::fp64_tensor] = 5.9e13;
  c.not_measured[flop_precision::fp8_tensor] = "needs cublasLt";
  c.wall_seconds = 12.5;
  const calibration back = parse_calibration(calibration_to_json(c), "c.json");
  EXPECT_EQ(back.kerntime_version, c.kerntime_version);
  EXPECT_EQ(back.date, c.date);
  EXPECT_EQ(back.device_name, c.device_name);
  EXPECT_EQ(back.device_uuid, c.device_uuid);
  EXPECT_EQ(back.compute_capability_major, 9);
  EXPECT_EQ(back.compute_capability_minor, 0);
  EXPECT_EQ(back.multiprocessors, 132);
  EXPECT_EQ(back.sm_clock_mhz, c.sm_clock_mhz);
  EXPECT_EQ(back.copy_bytes, c.copy_bytes);
  EXPECT_EQ(back.copy_bytes_per_s, c.copy_bytes_per_s);
  EXPECT_EQ(back.gemm_size, 8192);
  EXPECT_EQ(back.gemm_flops_per_s, c.gemm_flops_per_s);
  EXPECT_EQ(back.not_measured, c.not_measured);
  EXPECT_EQ(back.wall_seconds, c.wall_seconds);
  EXPECT_EQ(calibration_source(back, "c.json"), "c.json (NVIDIA H200, 2025-06-01T12:00:00Z)");
}

TEST(CalibrationFile, ErrorsSayHowToWriteOne) {
  for (const char* text : {"{", R"({"a": 1})", R"({"kerntime_calibration_version": 9})",
                           R"({"kerntime_calibration_version": 1})"}) {
    try {
      (void)parse_calibration(text, "c.json");
      ADD_FAILURE() << text;
    } catch (const invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--calibration c.json is not a kerntime calibration"),
                std::string::npos);
      EXPECT_NE(std::string(e.what()).find("kerntime calibrate --output FILE"), std::string::npos);
    }
  }
}

} // namespace
} // namespace kerntime::detail
