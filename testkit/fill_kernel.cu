#include "fill_kernel.hpp"

#include "cuda_check.hpp"

namespace kerntime::testkit {
namespace {

__global__ void fill_kernel(int* out, int value, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    out[i] = value;
  }
}

} // namespace

void launch_fill(cudaStream_t stream, int* out, int value, std::size_t count) {
  constexpr int threads = 256;
  constexpr int blocks = 132 * 8; // a few waves on an H200; the loop covers any size
  fill_kernel<<<blocks, threads, 0, stream>>>(out, value, count);
  KT_CUDA_CHECK(cudaGetLastError());
}

} // namespace kerntime::testkit
