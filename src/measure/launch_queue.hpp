#pragma once
// Measures, once per process, how many launches the launch queue takes behind a blocking kernel
// before the host's next launch blocks (~1,000 on an H200 with CUDA 13.0). The chunk planning
// (queue_plan.hpp) keeps a trial's chunks well inside it.

#include <cuda_runtime_api.h>

#include <optional>

#include "measure/blocking_kernel.hpp"
#include "measure/stall_watchdog.hpp"

namespace kerntime::detail {

// The launches queued before one blocked; nullopt when the probe did not fill the queue. Must run
// before CUPTI is attached (its launches carry no tag). Later calls return the first answer.
[[nodiscard]] std::optional<int> launch_queue_depth(cudaStream_t stream, blocking_kernel& blocker,
                                                    stall_watchdog& watchdog);

} // namespace kerntime::detail
