#pragma once
// The L2 flush before every iteration: a memset of a buffer twice the L2 size, then a read of it,
// so every iteration starts on an L2 holding none of its data and no dirty lines. Allocated once,
// before timing.

#include <cuda_runtime_api.h>

#include <cstddef>

namespace kerntime::detail {

class l2_flush {
public:
  // bytes == 0: twice the L2 size of the current device.
  explicit l2_flush(std::size_t bytes);
  ~l2_flush();
  l2_flush(const l2_flush&) = delete;
  l2_flush& operator=(const l2_flush&) = delete;

  void enqueue(cudaStream_t stream);
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }

private:
  void* buffer_ = nullptr;
  std::size_t bytes_ = 0;
  int value_ = 0; // alternates, so no memset can be skipped as a no-op
  int multiprocessors_ = 0;
};

} // namespace kerntime::detail
