// A square bf16 GEMM through cuBLAS (cublasGemmEx, fp32 accumulation): C = A * B with
// M = N = K = size. cuBLAS may run more than one kernel (split-K reductions, epilogues); the
// breakdown lists them. The handle and workspace are made before timing.

#include <cuda_bf16.h>

#include "cuda_check.hpp"
#include "elementwise.cuh"
#include "fill.cuh"
#include "kerntime/benchmark.hpp"

namespace kerntime::suite {
namespace {

class cublas_handle {
public:
  cublas_handle() { check_cublas(cublas().create(&handle_), "cublasCreate"); }
  ~cublas_handle() { (void)cublas().destroy(handle_); }
  cublas_handle(const cublas_handle&) = delete;
  cublas_handle& operator=(const cublas_handle&) = delete;
  [[nodiscard]] cublasHandle_t get() const noexcept { return handle_; }

private:
  cublasHandle_t handle_ = nullptr;
};

// NVIDIA's recommended cuBLAS workspace on Hopper.
constexpr std::size_t workspace_bytes = 32u << 20;

void gemm_bf16(state& s) {
  const auto size = s.get_int("size");
  if (size < 1 || size > 65536) {
    throw invalid_argument("gemm_bf16: axis size must be within 1..65536");
  }
  const auto n = static_cast<std::size_t>(size);
  auto a = make_input_sets<__nv_bfloat16>(s.input_sets(), n * n);
  auto b = make_input_sets<__nv_bfloat16>(s.input_sets(), n * n);
  auto c = make_input_sets<__nv_bfloat16>(s.input_sets(), n * n);
  for (int i = 0; i < s.input_sets(); ++i) {
    fill(a[i].data(), n * n, 2 * static_cast<std::uint64_t>(i), signed_bf16{});
    fill(b[i].data(), n * n, 2 * static_cast<std::uint64_t>(i) + 1, signed_bf16{});
  }
  cublas_handle handle;
  device_buffer<std::byte> workspace(workspace_bytes);
  const float alpha = 1.0f;
  const float beta = 0.0f;
  const int m = static_cast<int>(size);

  s.add_flops(2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n),
              flop_precision::bf16_tensor);
  s.add_bytes(3.0 * static_cast<double>(n * n * sizeof(__nv_bfloat16)));
  s.exec([&](cudaStream_t stream, int input_set) {
    check_cublas(cublas().set_stream(handle.get(), stream), "cublasSetStream");
    // cublasSetStream resets the workspace to cuBLAS's own pool; hand ours back (no allocation).
    check_cublas(cublas().set_workspace(handle.get(), workspace.data(), workspace.bytes()),
                 "cublasSetWorkspace");
    check_cublas(cublas().gemm_ex(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &alpha,
                                  a[input_set].data(), CUDA_R_16BF, m, b[input_set].data(),
                                  CUDA_R_16BF, m, &beta, c[input_set].data(), CUDA_R_16BF, m,
                                  CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
  });
}

} // namespace

KERNTIME_BENCHMARK(gemm_bf16).add_int_axis("size", {1024, 4096});

} // namespace kerntime::suite
