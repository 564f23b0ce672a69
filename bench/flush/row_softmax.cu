#include "row_softmax.hpp"

#include <cfloat>

#include "cuda_check.hpp"

namespace kerntime::bench {
namespace {

constexpr int threads = softmax_row_length / 4; // one float4 per thread
constexpr int warps = threads / 32;

template <typename Combine> __device__ float block_reduce(float value, Combine combine) {
  __shared__ float partial[warps];
  for (int offset = 16; offset > 0; offset /= 2) {
    value = combine(value, __shfl_xor_sync(0xffffffffu, value, offset));
  }
  if (threadIdx.x % 32 == 0) {
    partial[threadIdx.x / 32] = value;
  }
  __syncthreads();
  value = partial[0];
  for (int w = 1; w < warps; ++w) {
    value = combine(value, partial[w]);
  }
  __syncthreads(); // partial is reused by the next reduction
  return value;
}

__global__ void row_softmax(const float4* in, float4* out) {
  const std::size_t at = blockIdx.x * static_cast<std::size_t>(threads) + threadIdx.x;
  const float4 v = in[at];
  const float row_max = block_reduce(fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)),
                                     [](float a, float b) { return fmaxf(a, b); });
  const float4 e = {__expf(v.x - row_max), __expf(v.y - row_max), __expf(v.z - row_max),
                    __expf(v.w - row_max)};
  const float sum = block_reduce(e.x + e.y + e.z + e.w, [](float a, float b) { return a + b; });
  const float scale = 1.0f / sum;
  out[at] = {e.x * scale, e.y * scale, e.z * scale, e.w * scale};
}

} // namespace

void launch_row_softmax(cudaStream_t stream, const float* in, float* out, std::size_t rows) {
  row_softmax<<<static_cast<unsigned>(rows), threads, 0, stream>>>(
      reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out));
  KT_CUDA_CHECK(cudaGetLastError());
}

} // namespace kerntime::bench
