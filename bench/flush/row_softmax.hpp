#pragma once
// A row-wise softmax of fp32 rows of 1024 values: one block per row, each value read once and
// written once, so its time is set by memory (where its input lies: L2 or DRAM).

#include <cuda_runtime_api.h>

#include <cstddef>

namespace kerntime::bench {

inline constexpr int softmax_row_length = 1024;

// out[r][c] = exp(in[r][c] - max_r) / sum_c exp(in[r][c] - max_r) for rows r < rows.
void launch_row_softmax(cudaStream_t stream, const float* in, float* out, std::size_t rows);

} // namespace kerntime::bench
