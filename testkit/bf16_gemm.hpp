#pragma once
// A bf16 GEMM through cuBLAS that tests and benchmarks time: C = A·B on square n × n matrices
// (fp32 accumulation), one copy of each per input set, A and B random and never all zero, with a
// workspace of its own so cuBLAS never allocates inside a timed region or a capture.
// Header-only: only its users link cuBLAS.

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda_check.hpp"
#include "kerntime/cuda.hpp"

namespace kerntime::testkit {

class bf16_gemm {
public:
  bf16_gemm(int n, int input_sets)
      : n_(n), input_sets_(input_sets),
        matrix_(static_cast<std::size_t>(n) * static_cast<std::size_t>(n)),
        a_(matrix_ * static_cast<std::size_t>(input_sets)),
        b_(matrix_ * static_cast<std::size_t>(input_sets)),
        c_(matrix_ * static_cast<std::size_t>(input_sets)) {
    upload_random(a_, 1u);
    upload_random(b_, 2u);
    KT_LIBRARY_CHECK("cuBLAS", cublasCreate(&handle_));
    KT_LIBRARY_CHECK("cuBLAS", cublasSetWorkspace(handle_, workspace_.data(), workspace_.bytes()));
  }
  ~bf16_gemm() { static_cast<void>(cublasDestroy(handle_)); }
  bf16_gemm(const bf16_gemm&) = delete;
  bf16_gemm& operator=(const bf16_gemm&) = delete;

  // C[set] = A[set] · B[set] on `stream` (sets beyond input_sets wrap): a work function for
  // measure().
  void operator()(cudaStream_t stream, int set) const {
    const float alpha = 1.0f;
    const float beta = 0.0f;
    const std::size_t offset = matrix_ * static_cast<std::size_t>(set % input_sets_);
    KT_LIBRARY_CHECK("cuBLAS", cublasSetStream(handle_, stream));
    KT_LIBRARY_CHECK("cuBLAS", cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n_, n_, n_, &alpha,
                                            a_.data() + offset, CUDA_R_16BF, n_, b_.data() + offset,
                                            CUDA_R_16BF, n_, &beta, c_.data() + offset, CUDA_R_16BF,
                                            n_, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
  [[nodiscard]] double flops() const noexcept { return 2.0 * n_ * n_ * n_; }

private:
  // Uniform in [-0.5, 0.5) from a linear congruential sequence: the same inputs on every run.
  static void upload_random(const device_buffer<__nv_bfloat16>& to, std::uint32_t seed) {
    std::vector<__nv_bfloat16> host(to.size());
    std::uint32_t state = seed;
    for (__nv_bfloat16& value : host) {
      state = state * 1664525u + 1013904223u;
      value = __float2bfloat16(static_cast<float>(state >> 8) / 16777216.0f - 0.5f);
    }
    KT_CUDA_CHECK(cudaMemcpy(to.data(), host.data(), to.bytes(), cudaMemcpyHostToDevice));
  }

  int n_;
  int input_sets_;
  std::size_t matrix_;
  device_buffer<__nv_bfloat16> a_;
  device_buffer<__nv_bfloat16> b_;
  device_buffer<__nv_bfloat16> c_;
  device_buffer<std::byte> workspace_{std::size_t{64} << 20};
  cublasHandle_t handle_ = nullptr;
};

} // namespace kerntime::testkit
