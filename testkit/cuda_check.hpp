#pragma once
// Every CUDA and library call in the tests and benchmarks is checked with the call's own text, so
// a broken test says which call failed instead of timing garbage. The CUDA check is kerntime's.

#include <cstddef>

#include "kerntime/cuda.hpp"

namespace kerntime::testkit {

// Throws benchmark_failed naming the library and the call when `status` is not 0 (success for
// cuBLAS and CUPTI).
void check_library_status(int status, const char* library, const char* call);

// The number of CUDA devices; 0 where there is no driver or no GPU (never throws).
[[nodiscard]] int cuda_device_count() noexcept;

// The L2 size of the current device, in bytes (the flush buffers are multiples of it).
[[nodiscard]] std::size_t l2_bytes();

} // namespace kerntime::testkit

#define KT_CUDA_CHECK(call) ::kerntime::check_cuda((call), #call)

#define KT_LIBRARY_CHECK(library, call)                                                            \
  ::kerntime::testkit::check_library_status(static_cast<int>(call), (library), #call)
