#pragma once
// A square bf16 cuBLAS GEMM (fp32 accumulation) over rotating input sets: the matrix product the
// accuracy benchmarks time with kerntime and with Nsight Compute. Inputs are random, never zero.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cuda_bf16.h>

#include <cstddef>

#include "kerntime/cuda.hpp"

namespace kerntime::bench {

class bf16_gemm {
public:
  bf16_gemm(int n, int input_sets, cudaStream_t stream);
  ~bf16_gemm();
  bf16_gemm(const bf16_gemm&) = delete;
  bf16_gemm& operator=(const bf16_gemm&) = delete;

  // C[set] = A[set] * B[set] on `stream`.
  void run(cudaStream_t stream, int input_set);
  [[nodiscard]] double flops() const noexcept { return 2.0 * n_ * n_ * n_; }

private:
  int n_;
  int input_sets_;
  std::size_t matrix_;
  device_buffer<__nv_bfloat16> a_;
  device_buffer<__nv_bfloat16> b_;
  device_buffer<__nv_bfloat16> c_;
  device_buffer<std::byte> workspace_;
  cublasHandle_t handle_ = nullptr;
};

} // namespace kerntime::bench
