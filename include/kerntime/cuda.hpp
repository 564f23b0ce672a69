#pragma once
// CUDA support for code that prepares and launches GPU work: kerntime's engine, the bundled
// suite, the tests, the benchmarks, the Python module and your own benchmarks. A failed CUDA call
// becomes kerntime::benchmark_failed naming what was being done; the handles a benchmark owns are
// released when it ends, also when the measurement throws. Compiled by nvcc, it also gives device
// code the GPU's nanosecond clock and a spin of known duration.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace kerntime {

// Throws benchmark_failed naming `where` when `status` is an error.
void check_cuda(cudaError_t status, std::string_view where);

// A kernel launch reports a bad configuration only through the runtime's last error.
void check_launch(std::string_view kernel);

// Synchronizes the device and throws benchmark_failed if any work so far raised an error.
void check_device(std::string_view where);

// A non-blocking stream, destroyed with its owner.
class cuda_stream {
public:
  cuda_stream();
  ~cuda_stream();
  cuda_stream(const cuda_stream&) = delete;
  cuda_stream& operator=(const cuda_stream&) = delete;
  [[nodiscard]] cudaStream_t get() const noexcept { return stream_; }

private:
  cudaStream_t stream_ = nullptr;
};

// An event, destroyed with its owner. `flags` as cudaEventCreateWithFlags takes them: the
// default times; cudaEventDisableTiming is cheaper where an event only orders streams.
class cuda_event {
public:
  explicit cuda_event(unsigned flags = cudaEventDefault);
  ~cuda_event();
  cuda_event(const cuda_event&) = delete;
  cuda_event& operator=(const cuda_event&) = delete;
  [[nodiscard]] cudaEvent_t get() const noexcept { return event_; }

private:
  cudaEvent_t event_ = nullptr;
};

// `count` elements of T in device memory, allocated before any timing and freed with the owner.
template <typename T> class device_buffer {
public:
  explicit device_buffer(std::size_t count) : count_(count) {
    void* memory = nullptr;
    check_cuda(cudaMalloc(&memory, count * sizeof(T)), "allocating device memory (cudaMalloc)");
    data_ = static_cast<T*>(memory);
  }
  // A destructor cannot throw; after a device fault cudaFree fails and there is nothing to do.
  ~device_buffer() { static_cast<void>(cudaFree(data_)); }
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
[[nodiscard]] std::vector<device_buffer<T>> make_input_sets(int input_sets, std::size_t count) {
  std::vector<device_buffer<T>> sets;
  sets.reserve(static_cast<std::size_t>(input_sets));
  for (int i = 0; i < input_sets; ++i) {
    sets.emplace_back(count);
  }
  return sets;
}

#if defined(__CUDACC__)
// The GPU's nanosecond clock, the one CUPTI's timestamps come from (32 ns ticks on Hopper).
__device__ inline std::uint64_t global_timer_ns() {
  std::uint64_t now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

// Returns once `duration_ns` has passed on the global timer: GPU work of known duration.
__device__ inline void spin_for_ns(std::uint64_t duration_ns) {
  const std::uint64_t start = global_timer_ns();
  while (global_timer_ns() - start < duration_ns) {
  }
}
#endif

} // namespace kerntime
