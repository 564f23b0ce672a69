#include "work_kernels.hpp"

namespace kerntime::bench {
namespace {

__global__ void scale_kernel(float* values, std::size_t n, float factor) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    values[i] *= factor;
  }
}

__global__ void copy_kernel(const float* in, float* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    out[i] = in[i];
  }
}

} // namespace

void launch_scale(cudaStream_t stream, float* values, std::size_t count) {
  scale_kernel<<<1024, 256, 0, stream>>>(values, count, 1.0f);
}

void launch_copy(cudaStream_t stream, const float* in, float* out, std::size_t count) {
  copy_kernel<<<132 * 8, 512, 0, stream>>>(in, out, count);
}

} // namespace kerntime::bench
