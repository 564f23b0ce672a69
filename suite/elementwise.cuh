#pragma once
// A memory-bound elementwise kernel shared by the multi-stream and graph benchmarks, and the
// converters that turn fill() hashes into input values.

#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>

namespace kerntime::suite {

__global__ inline void scale_kernel(float* values, std::size_t count, float factor) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    values[i] *= factor;
  }
}

inline unsigned blocks_for(std::size_t count, unsigned threads) {
  return static_cast<unsigned>((count + threads - 1) / threads);
}

struct unit_float { // [0, 1)
  __device__ float operator()(std::uint32_t h) const { return float(h >> 8) * (1.0f / 16777216); }
};
struct small_int { // 0..3: sums of 2^28 of them stay inside int32
  __device__ int operator()(std::uint32_t h) const { return static_cast<int>(h & 3u); }
};
struct any_uint {
  __device__ std::uint32_t operator()(std::uint32_t h) const { return h; }
};
struct signed_bf16 { // [-1, 1)
  __device__ __nv_bfloat16 operator()(std::uint32_t h) const {
    return __float2bfloat16(float(h >> 8) * (2.0f / 16777216) - 1.0f);
  }
};

} // namespace kerntime::suite
