#pragma once
// Plain CUDA-event timing, the baseline kerntime is compared with. Used only while CUPTI is not
// attached: CUPTI's instrumentation would slow what the events see.

#include <cuda_runtime_api.h>

#include <functional>
#include <vector>

namespace kerntime::bench {

// Times `enqueue(stream)` `samples` times, each between its own pair of events and waited for,
// the way a hand-written benchmark loop does. Returns microseconds per sample.
[[nodiscard]] std::vector<double>
time_each_with_events(cudaStream_t stream, int samples,
                      const std::function<void(cudaStream_t)>& enqueue);

// Times `batch` back-to-back `enqueue(stream)` calls between one pair of events, `samples` times.
// Returns microseconds per call: launch gaps are hidden behind the queued work.
[[nodiscard]] std::vector<double>
time_batched_with_events(cudaStream_t stream, int samples, int batch,
                         const std::function<void(cudaStream_t)>& enqueue);

} // namespace kerntime::bench
