// The GEMM of gemm_kerntime, run plainly for Nsight Compute to time:
//   ncu --clock-control none --cache-control all --metrics gpu__time_duration.sum --csv
//       gemm_for_ncu [calls]
// One warm-up call, then `calls` calls, each after a memset of twice the L2 so the GEMM starts
// cold, as under kerntime. scripts/gpu_check.sh drops the warm-up call's kernels.

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "bf16_gemm.hpp"
#include "cuda_check.hpp"

#include "result_line.hpp"

int main(int argc, char** argv) try {
  using namespace kerntime;
  const int calls = argc > 1 ? std::atoi(argv[1]) : 20;
  constexpr int warmup_calls = 1;
  constexpr int input_sets = 3;
  device_buffer<char> flush(2 * testkit::l2_bytes());
  cuda_stream stream;
  testkit::bf16_gemm gemm(4096, input_sets);

  for (int i = 0; i < warmup_calls + calls; ++i) {
    KT_CUDA_CHECK(cudaMemsetAsync(flush.data(), i & 0xff, flush.bytes(), stream.get()));
    gemm(stream.get(), i % input_sets);
  }
  KT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  bench::result_line("gemm_for_ncu").add("warmup_calls", warmup_calls).add("calls", calls).print();
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "gemm_for_ncu: %s\n", e.what());
  return 1;
}
