#pragma once
// A kernel that writes to an address no allocation owns: the GPU raises an illegal-address fault
// and the CUDA context is unusable afterwards, so run it last or in a child process.

#include <cuda_runtime_api.h>

namespace kerntime::testkit {

void launch_illegal_address_write(cudaStream_t stream);

} // namespace kerntime::testkit
