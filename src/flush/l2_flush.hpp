#pragma once
// The L2 flush before every iteration: one load from every 128-byte line of a buffer four times
// the L2 size. L2 allocates and evicts whole lines, so each load that misses takes a line from
// whatever the last iteration left there, and a dirty victim is written back now, inside the
// flush, not during the next iteration; the loads leave only clean lines of the buffer behind.
// Four times, not twice: on the H200 a line the work wrote (or read twice) outlives a sweep of
// 2 x L2, not one of 4 x L2 (docs/flush.md has the evidence). Allocated once, before timing.

#include <cuda_runtime_api.h>

#include <cstddef>

namespace kerntime::detail {

class l2_flush {
public:
  // L2's unit of allocation and eviction on every architecture kerntime supports (sm_80 on).
  static constexpr std::size_t line_bytes = 128;

  // A flush of `bytes == 0` covers this many times the L2 size of the current device.
  static constexpr std::size_t default_l2_multiple = 4;

  // bytes == 0: default_l2_multiple times the L2 size of the current device.
  explicit l2_flush(std::size_t bytes);
  ~l2_flush();
  l2_flush(const l2_flush&) = delete;
  l2_flush& operator=(const l2_flush&) = delete;

  // Whether the flush kernel's code loads on the current device (cudaFuncGetAttributes loads it
  // without running it): cudaSuccess, or why not (cudaErrorNoKernelImageForDevice where this
  // build has no code for the GPU). The library's kernels share one list of architectures, so
  // the answer holds for the blocking kernel and the clock check too.
  [[nodiscard]] static cudaError_t kernel_loads();

  void enqueue(cudaStream_t stream);
  // The buffer's size: every line of it is loaded by each flush.
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }

private:
  void* buffer_ = nullptr;
  std::size_t bytes_ = 0;
};

} // namespace kerntime::detail
