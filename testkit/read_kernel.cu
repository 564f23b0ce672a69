#include "read_kernel.hpp"

#include "cuda_check.hpp"

namespace kerntime::testkit {
namespace {

// Four 16-byte loads per thread and step, issued before any is used, so enough bytes are in
// flight to reach DRAM bandwidth.
__global__ void read_kernel(const int4* in, std::size_t groups, int* sink) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  int folded = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < groups;
       i += stride) {
    int4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      v[k] = in[i + k * groups];
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      folded ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
    }
  }
  if (folded == 0x5a5a5a5a) {
    *sink = folded;
  }
}

} // namespace

void launch_read(cudaStream_t stream, const void* in, std::size_t bytes, int* sink) {
  constexpr int threads = 256;
  int device = 0;
  int multiprocessors = 0;
  KT_CUDA_CHECK(cudaGetDevice(&device));
  KT_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  // Four quarters of the buffer read side by side: thread i reads element i of each quarter.
  const std::size_t groups = bytes / (4 * sizeof(int4));
  read_kernel<<<multiprocessors * 8, threads, 0, stream>>>(static_cast<const int4*>(in), groups,
                                                           sink);
  KT_CUDA_CHECK(cudaGetLastError());
}

} // namespace kerntime::testkit
