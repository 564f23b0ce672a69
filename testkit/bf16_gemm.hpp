#pragma once
// A bf16 GEMM through cuBLAS that tests and benchmarks time: C = A·B on square n × n matrices,
// one copy of each per input set, with a workspace of its own so cuBLAS never allocates inside a
// timed region or a capture. Header-only: only its users link cuBLAS.

#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <cstddef>

#include "cuda_check.hpp"
#include "kerntime/cuda.hpp"

namespace kerntime::testkit {

class bf16_gemm {
public:
  // `a`, `b` and `c` hold `input_sets` matrices of n × n each; they must outlive the GEMM.
  bf16_gemm(int n, const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* c)
      : n_(n), a_(a), b_(b), c_(c) {
    KT_LIBRARY_CHECK("cuBLAS", cublasCreate(&handle_));
    KT_LIBRARY_CHECK("cuBLAS", cublasSetWorkspace(handle_, workspace_.data(), workspace_.bytes()));
  }
  ~bf16_gemm() { cublasDestroy(handle_); }
  bf16_gemm(const bf16_gemm&) = delete;
  bf16_gemm& operator=(const bf16_gemm&) = delete;

  // The GEMM of input set `set` on `stream`: a work function for measure().
  void operator()(cudaStream_t stream, int set) const {
    const float alpha = 1.0f;
    const float beta = 0.0f;
    const std::size_t offset = std::size_t{static_cast<std::size_t>(n_)} * n_ * set;
    KT_LIBRARY_CHECK("cuBLAS", cublasSetStream(handle_, stream));
    KT_LIBRARY_CHECK("cuBLAS", cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n_, n_, n_, &alpha,
                                            a_ + offset, CUDA_R_16BF, n_, b_ + offset, CUDA_R_16BF,
                                            n_, &beta, c_ + offset, CUDA_R_16BF, n_,
                                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }

private:
  int n_;
  const __nv_bfloat16* a_;
  const __nv_bfloat16* b_;
  __nv_bfloat16* c_;
  cublasHandle_t handle_ = nullptr;
  device_buffer<std::byte> workspace_{std::size_t{64} << 20};
};

} // namespace kerntime::testkit
