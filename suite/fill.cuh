#pragma once
// Deterministic pseudo-random inputs, generated on the device so setup stays fast for GiB inputs.
// Input set i uses seed i, so the sets differ.

#include <cstddef>
#include <cstdint>

#include "cuda_check.hpp"

namespace kerntime::suite {

__host__ __device__ inline std::uint32_t hash32(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return static_cast<std::uint32_t>(x);
}

template <typename T, typename Convert>
__global__ void fill_kernel(T* out, std::size_t count, std::uint64_t seed, Convert convert) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    out[i] = convert(hash32(seed * 0x9e3779b97f4a7c15ULL + i));
  }
}

// Setup only (synchronizes): never call it inside state.exec.
template <typename T, typename Convert>
void fill(T* out, std::size_t count, std::uint64_t seed, Convert convert) {
  fill_kernel<<<1024, 256>>>(out, count, seed, convert);
  check_launch("fill_kernel");
  check_cuda(cudaDeviceSynchronize(), "fill_kernel (input setup)");
}

} // namespace kerntime::suite
