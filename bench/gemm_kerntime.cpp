// A 4096^3 bf16 cuBLAS GEMM timed by kerntime with the default protocol (cold L2, rotating
// inputs). scripts/gpu_check.sh compares its median with Nsight Compute's reading of the same
// GEMM (gemm_for_ncu).

#include <kerntime/measure.hpp>

#include <cstdio>
#include <exception>

#include "bf16_gemm.hpp"

#include "cuda_check.hpp"
#include "result_line.hpp"

int main() try {
  using namespace kerntime;
  cuda_stream stream;
  testkit::bf16_gemm gemm(4096, protocol{}.input_sets);
  const measurement_result r =
      measure([&](cudaStream_t s, int set) { gemm(s, set); }, protocol{}, stream.get());

  for (const kernel_summary& k : r.kernels) {
    std::printf("kernel: %s calls/iter=%g mean_us=%.3f share=%.4f\n", k.name.c_str(),
                k.calls_per_iteration, k.mean_ns / 1e3, k.share);
  }
  // Nsight Compute times kernels only: the comparable figure is the kernels' medians, summed.
  double kernels_median_ns = 0;
  for (const auto& k : r.kernels) {
    if (k.kind == activity_kind::kernel) {
      kernels_median_ns += k.median_ns;
    }
  }
  bench::result_line("gemm_kerntime")
      .add("backend", to_string(r.backend))
      .add("median_us", r.latency_ns / 1e3)
      .add("busy_median_us", r.busy.median / 1e3)
      .add("kernels_median_us", kernels_median_ns / 1e3)
      .add("kernels", static_cast<double>(r.kernels.size()))
      .add("cv_of_means_pct", 100.0 * r.trials_summary.cv_of_means)
      .add("tflops", gemm.flops() / r.latency_ns / 1e3)
      .print();
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "gemm_kerntime: %s\n", e.what());
  return 1;
}
