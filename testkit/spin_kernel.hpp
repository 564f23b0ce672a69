#pragma once
// Kernels whose GPU duration is known in advance: one thread spins on %globaltimer, the clock
// CUPTI's timestamps come from, so a correct timer reads at least the requested time.

#include <cuda_runtime_api.h>

#include <chrono>

namespace kerntime::testkit {

// One block of one thread that returns once `duration` has passed on the GPU's global timer.
void launch_spin(cudaStream_t stream, std::chrono::nanoseconds duration);

// A kernel that does nothing: the shortest GPU work there is.
void launch_empty(cudaStream_t stream);

} // namespace kerntime::testkit
