#pragma once
// Device memory owned by a benchmark state: allocated in setup, before state.exec, and freed when
// the state ends, also when the measurement throws.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "cuda_check.hpp"

namespace kerntime::suite {

template <typename T> class device_buffer {
public:
  explicit device_buffer(std::size_t count) : count_(count) {
    check_cuda(cudaMalloc(&data_, count * sizeof(T)), "cudaMalloc");
  }
  ~device_buffer() { (void)cudaFree(data_); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& other) noexcept : data_(other.data_), count_(other.count_) {
    other.data_ = nullptr;
    other.count_ = 0;
  }
  device_buffer& operator=(device_buffer&&) = delete;

  [[nodiscard]] T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  [[nodiscard]] std::size_t bytes() const noexcept { return count_ * sizeof(T); }

private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

// One buffer per input set, so consecutive iterations read different addresses.
template <typename T>
std::vector<device_buffer<T>> make_input_sets(int input_sets, std::size_t count) {
  std::vector<device_buffer<T>> sets;
  sets.reserve(static_cast<std::size_t>(input_sets));
  for (int i = 0; i < input_sets; ++i) {
    sets.emplace_back(count);
  }
  return sets;
}

// Owned CUDA stream and event handles for benchmarks that fork work or capture graphs.
class owned_stream {
public:
  owned_stream() {
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~owned_stream() { (void)cudaStreamDestroy(stream_); }
  owned_stream(const owned_stream&) = delete;
  owned_stream& operator=(const owned_stream&) = delete;
  [[nodiscard]] cudaStream_t get() const noexcept { return stream_; }

private:
  cudaStream_t stream_ = nullptr;
};

class owned_event {
public:
  owned_event() {
    check_cuda(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "cudaEventCreate");
  }
  ~owned_event() { (void)cudaEventDestroy(event_); }
  owned_event(const owned_event&) = delete;
  owned_event& operator=(const owned_event&) = delete;
  [[nodiscard]] cudaEvent_t get() const noexcept { return event_; }

private:
  cudaEvent_t event_ = nullptr;
};

} // namespace kerntime::suite
