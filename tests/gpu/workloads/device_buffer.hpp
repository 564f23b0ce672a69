#pragma once
// Device memory owned for the length of a test or benchmark, allocated before any timing.

#include <cstddef>

namespace kerntime::gpu_workloads {

class device_buffer {
public:
  explicit device_buffer(std::size_t bytes);
  ~device_buffer();
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&&) = delete;
  device_buffer& operator=(device_buffer&&) = delete;

  [[nodiscard]] void* get() const noexcept { return data_; }
  template <typename T> [[nodiscard]] T* as() const noexcept { return static_cast<T*>(data_); }
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }

private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// The number of CUDA devices; 0 where there is no driver or no GPU (never throws).
[[nodiscard]] int cuda_device_count() noexcept;

} // namespace kerntime::gpu_workloads
