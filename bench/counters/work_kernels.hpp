#pragma once
// The kernels bench_profiler_state measures: a memory-bound scale and a copy (grid-stride).

#include <cuda_runtime_api.h>

#include <cstddef>

namespace kerntime::bench {

void launch_scale(cudaStream_t stream, float* values, std::size_t count);
void launch_copy(cudaStream_t stream, const float* in, float* out, std::size_t count);

} // namespace kerntime::bench
