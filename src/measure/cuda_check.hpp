#pragma once
// CUDA errors become kerntime::benchmark_failed naming what was being done.

#include <cuda_runtime_api.h>

#include <string_view>

namespace kerntime::detail {

// Throws benchmark_failed when `result` is an error.
void check_cuda(cudaError_t result, std::string_view where);

// Synchronizes the device and throws benchmark_failed if any work so far raised an error.
void check_device(std::string_view where);

} // namespace kerntime::detail
