#pragma once
// Load for the GPU telemetry tests: every SM kept busy for a given time.

#include <cuda_runtime_api.h>

#include <cstdint>

namespace kerntime::testing {

// `blocks` blocks of 128 threads, each spinning on %globaltimer for `nanoseconds`.
void launch_busy_kernel(cudaStream_t stream, int blocks, std::uint64_t nanoseconds);

} // namespace kerntime::testing
