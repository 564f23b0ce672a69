#include "measure/queue_plan.hpp"

#include <algorithm>

namespace kerntime::detail {

queue_plan plan_queue(int repeats, std::optional<int> queue_depth, int launches_per_iteration) {
  queue_plan plan;
  plan.chunk_iterations = repeats;
  if (queue_depth && launches_per_iteration > 0) {
    const int fits = *queue_depth / queue_share_denominator / launches_per_iteration;
    const int pipelined = (repeats + pipelined_chunks - 1) / pipelined_chunks;
    plan.chunk_iterations = std::clamp(std::min(fits, pipelined), 1, repeats);
  }
  return plan;
}

queue_plan plan_after_stall(queue_plan plan, int queued_iterations) {
  ++plan.stalls;
  if (queued_iterations <= 0 || plan.stalls >= max_queue_stalls) {
    plan.chunk_iterations = 0;
    return plan;
  }
  plan.chunk_iterations = std::max(1, std::min(plan.chunk_iterations, queued_iterations * 3 / 4));
  return plan;
}

} // namespace kerntime::detail
