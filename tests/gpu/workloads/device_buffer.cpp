#include "device_buffer.hpp"

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"

namespace kerntime::gpu_workloads {

device_buffer::device_buffer(std::size_t bytes) : bytes_(bytes) {
  KT_CUDA_CHECK(cudaMalloc(&data_, bytes));
}

device_buffer::~device_buffer() {
  // A destructor cannot throw; after a device fault cudaFree fails and there is nothing to do.
  static_cast<void>(cudaFree(data_));
}

int cuda_device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    static_cast<void>(cudaGetLastError()); // a missing driver is not an error for later calls
    return 0;
  }
  return count;
}

} // namespace kerntime::gpu_workloads
