#include "flush_candidates.hpp"

#include "cuda_check.hpp"
#include "read_kernel.hpp"

namespace kerntime::bench {
namespace {

constexpr std::size_t line_bytes = 128;

int multiprocessors() {
  int device = 0;
  int count = 0;
  KT_CUDA_CHECK(cudaGetDevice(&device));
  KT_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  return count;
}

// kerntime's read-back until 2026-12, as it was: 4 blocks per SM, one 16-byte load per step.
__global__ void flush_memset_read_back(const int4* buffer, std::size_t count, int* sink) {
  int folded = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const int4 v = buffer[i];
    folded ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (folded == 0x5a5a5a5a) {
    *sink = folded;
  }
}

// One 4-byte load per 128-byte line, one thread per line.
__global__ void flush_read_lines(const int* buffer, std::size_t lines, int* sink) {
  const std::size_t line = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (line >= lines) {
    return;
  }
  const int value = buffer[line * (line_bytes / sizeof(int))];
  if (value == 0x5a5a5a5a) {
    *sink = value;
  }
}

} // namespace

std::string_view to_string(flush_method m) {
  switch (m) {
  case flush_method::memset:
    return "memset";
  case flush_method::memset_read:
    return "memset_read";
  case flush_method::read:
    return "read";
  case flush_method::read_lines:
    return "read_lines";
  }
  return "?";
}

candidate_flush::candidate_flush(flush_method method, std::size_t bytes)
    : method_(method), bytes_(bytes / line_bytes * line_bytes), buffer_(bytes_ / sizeof(int) + 1) {
  KT_CUDA_CHECK(cudaMemset(buffer_.data(), 0, buffer_.bytes()));
}

void candidate_flush::enqueue(cudaStream_t stream) {
  int* sink = buffer_.data() + bytes_ / sizeof(int);
  switch (method_) {
  case flush_method::memset:
  case flush_method::memset_read:
    value_ ^= 1;
    KT_CUDA_CHECK(cudaMemsetAsync(buffer_.data(), value_, bytes_, stream));
    if (method_ == flush_method::memset_read) {
      flush_memset_read_back<<<4 * multiprocessors(), 256, 0, stream>>>(
          reinterpret_cast<const int4*>(buffer_.data()), bytes_ / sizeof(int4), sink);
    }
    break;
  case flush_method::read:
    testkit::launch_read(stream, buffer_.data(), bytes_, sink); // every byte, nothing written
    break;
  case flush_method::read_lines: {
    const std::size_t lines = bytes_ / line_bytes;
    flush_read_lines<<<static_cast<unsigned>((lines + 255) / 256), 256, 0, stream>>>(buffer_.data(),
                                                                                     lines, sink);
    break;
  }
  }
  KT_CUDA_CHECK(cudaGetLastError());
}

} // namespace kerntime::bench
