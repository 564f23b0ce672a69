#include "measure/l2_flush.hpp"

#include "measure/cuda_check.hpp"

namespace kerntime::detail {

l2_flush::l2_flush(std::size_t bytes) : bytes_(bytes) {
  if (bytes_ == 0) {
    int device = 0;
    int l2 = 0;
    check_cuda(cudaGetDevice(&device), "reading the current device");
    check_cuda(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "reading the L2 size");
    bytes_ = 2 * static_cast<std::size_t>(l2);
  }
  check_cuda(cudaMalloc(&buffer_, bytes_), "allocating the L2 flush buffer");
}

l2_flush::~l2_flush() {
  cudaFree(buffer_);
}

void l2_flush::enqueue(cudaStream_t stream) {
  value_ ^= 1;
  check_cuda(cudaMemsetAsync(buffer_, value_, bytes_, stream), "flushing L2");
}

} // namespace kerntime::detail
