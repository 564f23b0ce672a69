#include "measure/warmup.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kerntime/statistics.hpp"
#include "measure/event_pairs.hpp"

namespace kerntime::detail {
namespace {

void run_untimed(iteration_context& context) {
  if (context.flush != nullptr) {
    context.flush->enqueue(context.stream);
  }
  context.work(context.stream, context.take_input_set());
}

cudaError_t first_error(cudaError_t error) {
  return error != cudaSuccess ? error : cudaGetLastError();
}

// One batch of settle_batch_iterations, each between an event pair; the median event time, or
// the CUDA error that stopped it.
struct batch_result {
  double median_ns = 0;
  cudaError_t error = cudaSuccess;
};

class timed_batch {
public:
  timed_batch() : events_(settle_batch_iterations) {}

  batch_result run(iteration_context& context) {
    for (int i = 0; i < events_.size(); ++i) {
      if (context.flush != nullptr) {
        context.flush->enqueue(context.stream); // before the start event: never timed
      }
      const int input_set = context.take_input_set();
      if (const cudaError_t e = cudaEventRecord(events_.start(i), context.stream);
          e != cudaSuccess) {
        return {0, e};
      }
      context.work(context.stream, input_set);
      if (const cudaError_t e = cudaEventRecord(events_.end(i), context.stream); e != cudaSuccess) {
        return {0, e};
      }
    }
    if (const cudaError_t e = first_error(cudaDeviceSynchronize()); e != cudaSuccess) {
      return {0, e};
    }
    std::vector<double> times;
    times.reserve(static_cast<std::size_t>(events_.size()));
    for (int i = 0; i < events_.size(); ++i) {
      float ms = 0;
      if (const cudaError_t e = cudaEventElapsedTime(&ms, events_.start(i), events_.end(i));
          e != cudaSuccess) {
        return {0, e};
      }
      times.push_back(static_cast<double>(ms) * 1e6);
    }
    return {median(std::move(times)), cudaSuccess};
  }

private:
  event_pairs events_;
};

} // namespace

bool has_settled(std::span<const double> batch_medians) {
  const auto window = static_cast<std::size_t>(settle_window);
  if (batch_medians.size() < 2 * window) {
    return false;
  }
  const auto last = batch_medians.subspan(batch_medians.size() - window);
  const auto before = batch_medians.subspan(batch_medians.size() - 2 * window, window);
  const double now = median(std::vector<double>(last.begin(), last.end()));
  const double then = median(std::vector<double>(before.begin(), before.end()));
  return std::abs(now - then) <= std::max(settle_tolerance * then, settle_floor_ns);
}

warmup_outcome warm_up(iteration_context& context) {
  warmup_outcome outcome;
  for (int i = 0; i < context.settings.warmup; ++i) {
    run_untimed(context);
  }
  outcome.iterations = context.settings.warmup;
  if (context.settings.warmup_auto) {
    outcome.error = first_error(cudaDeviceSynchronize());
    timed_batch batch;
    std::vector<double> medians;
    const auto start = std::chrono::steady_clock::now();
    outcome.settled = false;
    while (outcome.error == cudaSuccess && !outcome.settled &&
           outcome.iterations + settle_batch_iterations <= max_auto_warmup_iterations &&
           std::chrono::steady_clock::now() - start < max_auto_warmup_time) {
      const batch_result result = batch.run(context);
      outcome.error = result.error;
      outcome.iterations += settle_batch_iterations;
      medians.push_back(result.median_ns);
      outcome.settled = result.error == cudaSuccess && has_settled(medians);
    }
    if (outcome.error != cudaSuccess) {
      outcome.settled = true; // not a settling question: the error is reported instead
    }
    return outcome;
  }
  outcome.error = first_error(cudaDeviceSynchronize());
  return outcome;
}

} // namespace kerntime::detail
