#pragma once
// The L2 flushes the benchmark compares, each enqueued as part of the timed work so CUPTI's
// per-kernel breakdown times it and the work after it alike (bench_flush.cpp):
//   memset        — cudaMemsetAsync of the buffer only: evicts, but leaves dirty lines behind;
//   memset_read   — the memset, then a read of the whole buffer (kerntime's flush until 2026-12);
//   read          — a read of the whole buffer, every byte;
//   read_lines    — one 4-byte load from every 128-byte line of the buffer (kerntime's flush now,
//                   at 4 x L2; run here by the bench's own copy so every candidate is timed the
//                   same way).
// The buffer is a multiple of the device's L2 size.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "kerntime/cuda.hpp"

namespace kerntime::bench {

enum class flush_method { memset, memset_read, read, read_lines };
[[nodiscard]] std::string_view to_string(flush_method m);

class candidate_flush {
public:
  candidate_flush(flush_method method, std::size_t bytes);

  void enqueue(cudaStream_t stream);
  [[nodiscard]] flush_method method() const noexcept { return method_; }
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }

private:
  flush_method method_;
  std::size_t bytes_;
  device_buffer<int> buffer_; // the flush's bytes, then one spare int as the kernels' sink
  int value_ = 0;             // the memset's value alternates, so no memset is a no-op
};

} // namespace kerntime::bench
