#pragma once
// The warm-up before the timer is attached: JIT compilation, autotuning, lazy loading and clock
// ramp-up happen here, never in a sample. A fixed count by default; with warmup_auto it goes on
// until the iteration time has settled (docs/protocol.md gives the rule and its bounds).

#include <cuda_runtime_api.h>

#include <chrono>
#include <span>

#include "measure/iteration_context.hpp"

namespace kerntime::detail {

// warmup_auto times batches of this many iterations with CUDA events (flush outside the events).
inline constexpr int settle_batch_iterations = 10;
// Settled: the median of the last settle_window batch medians is within settle_tolerance (or
// settle_floor_ns, CUDA events' stated resolution) of the median of the settle_window before.
inline constexpr int settle_window = 3;
inline constexpr double settle_tolerance = 0.02;
inline constexpr double settle_floor_ns = 500;
// The bounds of an auto warm-up; reaching one is said in a warning.
inline constexpr int max_auto_warmup_iterations = 1000;
inline constexpr std::chrono::seconds max_auto_warmup_time{10};

// Pure: whether batch medians (in the order they ran) show no trend any more.
[[nodiscard]] bool has_settled(std::span<const double> batch_medians);

struct warmup_outcome {
  int iterations = 0;
  bool settled = true;             // warmup_auto: met the rule before a bound
  cudaError_t error = cudaSuccess; // the CUDA error the warm-up left (the timer choice reports it)
};

// Runs the protocol's warm-up on the context's stream.
[[nodiscard]] warmup_outcome warm_up(iteration_context& context);

} // namespace kerntime::detail
