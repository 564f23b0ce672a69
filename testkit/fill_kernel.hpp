#pragma once
// A user kernel that fills memory, named like the fill kernels that name-filtering tools dropped
// from their totals: kerntime must count it as the user's work.

#include <cuda_runtime_api.h>

#include <cstddef>

namespace kerntime::testkit {

// Writes `value` to out[0..count) with a grid-stride loop over the whole GPU.
void launch_fill(cudaStream_t stream, int* out, int value, std::size_t count);

} // namespace kerntime::testkit
