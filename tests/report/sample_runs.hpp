#pragma once
// Fixed result objects for the report tests: one ok state with two hostile kernel names,
// telemetry and warnings, one failed, one skipped, one timed with CUDA events without NVML, and
// two of a copy and a GEMM with counters requested: measured on one, unavailable on the other.

#include <string>
#include <vector>

#include "kerntime/report.hpp"

namespace kerntime::test {

// A 2 KB template instantiation with commas, quotes, angle brackets, ampersands and a pipe.
[[nodiscard]] std::string long_template_name();
// Non-ASCII, a backtick, a quote, a pipe, a newline, a tab and a control character.
[[nodiscard]] std::string tricky_kernel_name();

// The kernels of the counter states: a 256 MiB copy and a bf16 tensor-core GEMM.
[[nodiscard]] std::string copy_kernel_name();
[[nodiscard]] std::string gemm_kernel_name();

[[nodiscard]] run_context sample_context();
[[nodiscard]] std::vector<benchmark_run> sample_runs();

} // namespace kerntime::test
