#include "lone_kernel.hpp"

namespace kerntime::bench {
namespace {

__global__ void increment(int* counter) {
  if (threadIdx.x == 0) {
    *counter += 1;
  }
}

} // namespace

void launch_increment(cudaStream_t stream, int* counter) {
  increment<<<1, 32, 0, stream>>>(counter);
}

} // namespace kerntime::bench
