// The cuBLAS GEMMs `kerntime calibrate` times (calibration_gemm.hpp), one per precision cuBLAS
// runs through cublasGemmEx: fp64 (on DMMA tensor cores where the GPU has them), fp32 on CUDA
// cores, tf32, fp16 and bf16 on tensor cores with fp32 accumulation, int8 with int32
// accumulation. Registered when this object file loads; linked by the `kerntime` command only, so
// kerntime_cli needs no cuBLAS.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "cli/calibration_gemm.hpp"
#include "kerntime/cublas.hpp"
#include "kerntime/cuda.hpp"
#include "kerntime/errors.hpp"
#include "roofline/peak_table.hpp"

namespace kerntime::detail {
namespace {

void check_gemm_call(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw gemm_unavailable(fmt::format("{} failed: {} ({})", what, cublas().status_name(status),
                                       cublas().status_string(status)));
  }
}

// Fills `bytes` of device memory with a host pattern of values in [-1, 1] (or small integers):
// zeros would flatter the GEMM (tensor cores draw less power on them).
template <typename T> void fill(void* device, std::size_t count, T (*make)(float)) {
  constexpr std::size_t pattern_count = 1 << 18;
  std::vector<T> pattern(std::min(count, pattern_count));
  std::mt19937 random(42);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (auto& value : pattern) {
    value = make(uniform(random));
  }
  auto* bytes = static_cast<std::byte*>(device);
  const std::size_t total = count * sizeof(T);
  std::size_t done = pattern.size() * sizeof(T);
  check_cuda(cudaMemcpy(bytes, pattern.data(), done, cudaMemcpyHostToDevice), "filling a GEMM");
  while (done < total) { // doubling device-to-device copies
    const std::size_t step = std::min(done, total - done);
    check_cuda(cudaMemcpy(bytes + done, bytes, step, cudaMemcpyDeviceToDevice), "filling a GEMM");
    done += step;
  }
}

struct gemm_types {
  flop_precision precision;
  cudaDataType_t ab;
  cudaDataType_t c;
  cublasComputeType_t compute;
  std::size_t ab_bytes;
  std::size_t c_bytes;
};

class cublas_gemm final : public calibration_gemm {
public:
  explicit cublas_gemm(gemm_types types) : types_(types) {}
  ~cublas_gemm() override {
    if (handle_ != nullptr) {
      (void)cublas().destroy(handle_);
    }
  }
  cublas_gemm(const cublas_gemm&) = delete;
  cublas_gemm& operator=(const cublas_gemm&) = delete;

  [[nodiscard]] flop_precision precision() const override { return types_.precision; }

  void prepare(long long size) override {
    if (types_.precision == flop_precision::fp8_tensor) {
      throw gemm_unavailable("fp8 GEMMs need cublasLt, which kerntime calibrate does not use yet");
    }
    size_ = size;
    const auto n = static_cast<std::size_t>(size) * static_cast<std::size_t>(size);
    a_.emplace(n * types_.ab_bytes);
    b_.emplace(n * types_.ab_bytes);
    c_.emplace(n * types_.c_bytes);
    fill_operand(a_->data(), n);
    fill_operand(b_->data(), n);
    workspace_.emplace(std::size_t{32} << 20);
    try {
      (void)cublas(); // loaded on the first GEMM (kerntime/cublas.hpp)
    } catch (const error& e) {
      throw gemm_unavailable(e.what());
    }
    check_gemm_call(cublas().create(&handle_), "cublasCreate");
  }

  void run(cudaStream_t stream) override {
    check_gemm_call(cublas().set_stream(handle_, stream), "cublasSetStream");
    check_gemm_call(cublas().set_workspace(handle_, workspace_->data(), workspace_->bytes()),
                    "cublasSetWorkspace");
    const int m = static_cast<int>(size_);
    const double alpha64 = 1.0;
    const double beta64 = 0.0;
    const float alpha32 = 1.0f;
    const float beta32 = 0.0f;
    const std::int32_t alpha_i = 1;
    const std::int32_t beta_i = 0;
    const void* alpha = &alpha32;
    const void* beta = &beta32;
    if (types_.compute == CUBLAS_COMPUTE_64F) {
      alpha = &alpha64;
      beta = &beta64;
    } else if (types_.compute == CUBLAS_COMPUTE_32I) {
      alpha = &alpha_i;
      beta = &beta_i;
    }
    // int8 (IMMA) wants A transposed: the "TN" layout cuBLAS documents for it.
    const cublasOperation_t op_a =
        types_.precision == flop_precision::int8_tensor ? CUBLAS_OP_T : CUBLAS_OP_N;
    check_gemm_call(cublas().gemm_ex(handle_, op_a, CUBLAS_OP_N, m, m, m, alpha, a_->data(),
                                     types_.ab, m, b_->data(), types_.ab, m, beta, c_->data(),
                                     types_.c, m, types_.compute, CUBLAS_GEMM_DEFAULT),
                    "cublasGemmEx");
  }

private:
  void fill_operand(void* device, std::size_t n) const {
    switch (types_.ab) {
    case CUDA_R_64F:
      fill<double>(device, n, [](float x) { return static_cast<double>(x); });
      break;
    case CUDA_R_32F:
      fill<float>(device, n, [](float x) { return x; });
      break;
    case CUDA_R_16F:
      fill<__half>(device, n, [](float x) { return __float2half(x); });
      break;
    case CUDA_R_16BF:
      fill<__nv_bfloat16>(device, n, [](float x) { return __float2bfloat16(x); });
      break;
    default:
      fill<std::int8_t>(device, n, [](float x) { return static_cast<std::int8_t>(x * 100.0f); });
      break;
    }
  }

  gemm_types types_;
  long long size_ = 0;
  std::optional<device_buffer<std::byte>> a_;
  std::optional<device_buffer<std::byte>> b_;
  std::optional<device_buffer<std::byte>> c_;
  std::optional<device_buffer<std::byte>> workspace_;
  cublasHandle_t handle_ = nullptr;
};

// DGEMM runs on DMMA tensor cores where the GPU has them (the table says so), else on CUDA cores.
flop_precision fp64_unit() {
  int device = 0;
  cudaDeviceProp props{};
  if (cudaGetDevice(&device) == cudaSuccess &&
      cudaGetDeviceProperties(&props, device) == cudaSuccess &&
      flops_per_clock_per_sm(props.major, props.minor, flop_precision::fp64_tensor)) {
    return flop_precision::fp64_tensor;
  }
  return flop_precision::fp64;
}

std::vector<std::unique_ptr<calibration_gemm>> make_cublas_gemms() {
  const std::vector<gemm_types> types{
      {fp64_unit(), CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, 8, 8},
      {flop_precision::fp32, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 4, 4},
      {flop_precision::tf32_tensor, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, 4},
      {flop_precision::fp16_tensor, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 2, 2},
      {flop_precision::bf16_tensor, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2, 2},
      {flop_precision::fp8_tensor, CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 1, 2},
      {flop_precision::int8_tensor, CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, 1, 4},
  };
  std::vector<std::unique_ptr<calibration_gemm>> gemms;
  for (const auto& t : types) {
    gemms.push_back(std::make_unique<cublas_gemm>(t));
  }
  return gemms;
}

[[maybe_unused]] const bool registered = [] {
  set_calibration_gemm_factory(make_cublas_gemms);
  return true;
}();

} // namespace
} // namespace kerntime::detail
