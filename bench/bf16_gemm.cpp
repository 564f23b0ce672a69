#include "bf16_gemm.hpp"

#include <cstdint>
#include <vector>

#include "cuda_check.hpp"

namespace kerntime::bench {
namespace {

void upload_random_bf16(const device_buffer<__nv_bfloat16>& to, std::uint32_t seed) {
  std::vector<__nv_bfloat16> host(to.size());
  std::uint32_t state = seed;
  for (__nv_bfloat16& value : host) {
    state = state * 1664525u + 1013904223u;
    value = __float2bfloat16(static_cast<float>(state >> 8) / 16777216.0f - 0.5f);
  }
  KT_CUDA_CHECK(cudaMemcpy(to.data(), host.data(), to.bytes(), cudaMemcpyHostToDevice));
}

} // namespace

bf16_gemm::bf16_gemm(int n, int input_sets, cudaStream_t stream)
    : n_(n), input_sets_(input_sets), matrix_(static_cast<std::size_t>(n) * n),
      a_(matrix_ * static_cast<std::size_t>(input_sets)),
      b_(matrix_ * static_cast<std::size_t>(input_sets)),
      c_(matrix_ * static_cast<std::size_t>(input_sets)),
      // cuBLAS's own workspace, given up front so it never allocates while being timed.
      workspace_(std::size_t{64} << 20) {
  upload_random_bf16(a_, 1u);
  upload_random_bf16(b_, 2u);
  KT_LIBRARY_CHECK("cuBLAS", cublasCreate(&handle_));
  KT_LIBRARY_CHECK("cuBLAS", cublasSetStream(handle_, stream));
  KT_LIBRARY_CHECK("cuBLAS", cublasSetWorkspace(handle_, workspace_.data(), workspace_.bytes()));
}

bf16_gemm::~bf16_gemm() {
  static_cast<void>(cublasDestroy(handle_));
}

void bf16_gemm::run(cudaStream_t stream, int input_set) {
  const float alpha = 1.0f;
  const float beta = 0.0f;
  const std::size_t offset = matrix_ * static_cast<std::size_t>(input_set % input_sets_);
  KT_LIBRARY_CHECK("cuBLAS", cublasSetStream(handle_, stream));
  KT_LIBRARY_CHECK("cuBLAS", cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n_, n_, n_, &alpha,
                                          a_.data() + offset, CUDA_R_16BF, n_, b_.data() + offset,
                                          CUDA_R_16BF, n_, &beta, c_.data() + offset, CUDA_R_16BF,
                                          n_, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

} // namespace kerntime::bench
