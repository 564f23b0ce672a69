#pragma once
// The suite's tiny_kernel/kernels=1 as a bench's work: one warp bumps a counter in device memory,
// a kernel of about a microsecond after a flush, mostly launch and one DRAM round trip.

#include <cuda_runtime_api.h>

namespace kerntime::bench {

void launch_increment(cudaStream_t stream, int* counter);

} // namespace kerntime::bench
