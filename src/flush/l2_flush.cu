#include "flush/l2_flush.hpp"

#include <cstdint>

#include "kerntime/cuda.hpp"

namespace kerntime::detail {
namespace {

constexpr unsigned threads_per_block = 256;

// One thread per line, so every load is in flight at once. The store never happens (the buffer
// is zeroed), but the compiler cannot know that, so it keeps every load.
__global__ void l2_flush_touch_lines(const int* buffer, std::size_t lines, int* sink) {
  const std::size_t line = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (line >= lines) {
    return;
  }
  const int value = buffer[line * (l2_flush::line_bytes / sizeof(int))];
  if (value == 0x5a5a5a5a) {
    *sink = value;
  }
}

} // namespace

l2_flush::l2_flush(std::size_t bytes) : bytes_(bytes) {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "reading the current device");
  if (bytes_ == 0) {
    int l2 = 0;
    check_cuda(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "reading the L2 size");
    bytes_ = default_l2_multiple * static_cast<std::size_t>(l2);
  }
  // The sink lies after the last line; the buffer is zeroed once, so the loads read defined data.
  const std::size_t lines = (bytes_ + line_bytes - 1) / line_bytes;
  check_cuda(cudaMalloc(&buffer_, lines * line_bytes + sizeof(int)),
             "allocating the L2 flush buffer");
  check_cuda(cudaMemset(buffer_, 0, lines * line_bytes + sizeof(int)),
             "zeroing the L2 flush buffer");
}

l2_flush::~l2_flush() {
  cudaFree(buffer_);
}

cudaError_t l2_flush::kernel_loads() {
  cudaFuncAttributes attributes{};
  return cudaFuncGetAttributes(&attributes, l2_flush_touch_lines);
}

void l2_flush::enqueue(cudaStream_t stream) {
  const std::size_t lines = (bytes_ + line_bytes - 1) / line_bytes;
  const auto blocks = static_cast<unsigned>((lines + threads_per_block - 1) / threads_per_block);
  l2_flush_touch_lines<<<blocks, threads_per_block, 0, stream>>>(
      static_cast<const int*>(buffer_), lines,
      reinterpret_cast<int*>(static_cast<char*>(buffer_) + lines * line_bytes));
  check_cuda(cudaGetLastError(), "flushing L2");
}

} // namespace kerntime::detail
