#pragma once
// A kernel that reads a buffer once at full speed and writes nothing: how fast it runs tells
// where the buffer was (L2 or DRAM), and it leaves no dirty line behind. The L2 flush's tests and
// its benchmark read with it.

#include <cuda_runtime_api.h>

#include <cstddef>

namespace kerntime::testkit {

// Reads every byte of in[0..bytes) (bytes a multiple of 64) and writes nothing (`sink` only if
// the data folds to an impossible value; give it a spare int).
void launch_read(cudaStream_t stream, const void* in, std::size_t bytes, int* sink);

} // namespace kerntime::testkit
