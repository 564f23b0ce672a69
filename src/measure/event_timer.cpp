#include "measure/event_timer.hpp"

#include <fmt/format.h>

#include <vector>

#include "measure/cuda_check.hpp"
#include "measure/trial_loop.hpp"

namespace kerntime::detail {
namespace {

class event_pairs {
public:
  explicit event_pairs(int count)
      : start_(static_cast<std::size_t>(count)), end_(static_cast<std::size_t>(count)) {
    for (std::size_t i = 0; i < start_.size(); ++i) {
      check_cuda(cudaEventCreate(&start_[i]), "creating timing events");
      check_cuda(cudaEventCreate(&end_[i]), "creating timing events");
    }
  }
  ~event_pairs() {
    for (std::size_t i = 0; i < start_.size(); ++i) {
      cudaEventDestroy(start_[i]);
      cudaEventDestroy(end_[i]);
    }
  }
  event_pairs(const event_pairs&) = delete;
  event_pairs& operator=(const event_pairs&) = delete;
  event_pairs(event_pairs&&) = delete;
  event_pairs& operator=(event_pairs&&) = delete;

  cudaEvent_t start(int i) { return start_[static_cast<std::size_t>(i)]; }
  cudaEvent_t end(int i) { return end_[static_cast<std::size_t>(i)]; }

private:
  std::vector<cudaEvent_t> start_;
  std::vector<cudaEvent_t> end_;
};

} // namespace

timed_trials time_with_events(iteration_context& context) {
  timed_trials out;
  const int repeats = context.settings.repeats;
  event_pairs events(repeats);
  const auto untagged = [](const auto& launch) { launch(); };
  int timeouts = 0;

  run_trials(
      context, out,
      [&](int trial) {
        const std::string where = fmt::format("trial {}", trial + 1);
        const auto enqueue_iterations = [&] {
          for (int r = 0; r < repeats; ++r) {
            if (context.flush != nullptr) {
              context.flush->enqueue(context.stream); // before the start event: never timed
            }
            const int input_set = context.take_input_set();
            check_cuda(cudaEventRecord(events.start(r), context.stream), where);
            context.work(context.stream, input_set);
            check_cuda(cudaEventRecord(events.end(r), context.stream), where);
          }
        };
        if (run_blocked_trial(context, where, untagged, enqueue_iterations)) {
          ++timeouts;
        }
        std::vector<iteration_sample> samples;
        samples.reserve(static_cast<std::size_t>(repeats));
        for (int r = 0; r < repeats; ++r) {
          float ms = 0;
          check_cuda(cudaEventElapsedTime(&ms, events.start(r), events.end(r)), where);
          const double ns = static_cast<double>(ms) * 1e6;
          samples.push_back({ns, ns});
        }
        out.samples.push_back(std::move(samples));
        return out.samples.size();
      },
      [&](std::size_t) { out.samples.pop_back(); }, untagged);

  if (timeouts > 0) {
    out.warnings.push_back(blocking_timeout_warning(timeouts));
  }
  return out;
}

} // namespace kerntime::detail
