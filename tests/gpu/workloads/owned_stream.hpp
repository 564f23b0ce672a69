#pragma once
// A non-blocking CUDA stream owned by a test or benchmark.

#include <cuda_runtime_api.h>

#include "cuda_check.hpp"

namespace kerntime::gpu_workloads {

class owned_stream {
public:
  owned_stream() { KT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~owned_stream() { static_cast<void>(cudaStreamDestroy(stream_)); }
  owned_stream(const owned_stream&) = delete;
  owned_stream& operator=(const owned_stream&) = delete;
  owned_stream(owned_stream&&) = delete;
  owned_stream& operator=(owned_stream&&) = delete;
  [[nodiscard]] cudaStream_t get() const noexcept { return stream_; }

private:
  cudaStream_t stream_ = nullptr;
};

} // namespace kerntime::gpu_workloads
