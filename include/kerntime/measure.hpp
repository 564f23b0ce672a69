#pragma once
// The entry point: measure a piece of CUDA work under a protocol.

#include <cuda_runtime_api.h>

#include <functional>

#include "kerntime/errors.hpp"
#include "kerntime/protocol.hpp"
#include "kerntime/result.hpp"

namespace kerntime {

// The work to time. It must enqueue its GPU work on `stream` (or on streams it joins back to
// `stream`) from the calling thread, and use input set `input_set` (0 <= input_set < protocol
// input_sets) so consecutive iterations touch different memory. It must not synchronize or
// allocate: kerntime prepares everything before the timed region.
using work_function = std::function<void(cudaStream_t stream, int input_set)>;

// Runs warmup, trials and repeats on the current CUDA device. `stream` == nullptr: kerntime
// creates and destroys its own non-blocking stream. Throws invalid_argument, cupti_unavailable
// (backend = cupti only), benchmark_failed or measurement_invalid.
[[nodiscard]] measurement_result measure(const work_function& work, const protocol& p = {},
                                         cudaStream_t stream = nullptr);

} // namespace kerntime
