#include "event_timing.hpp"

#include "cuda_check.hpp"

namespace kerntime::bench {
namespace {

class event_pair {
public:
  double time_us(cudaStream_t stream, const std::function<void(cudaStream_t)>& enqueue, int calls) {
    KT_CUDA_CHECK(cudaEventRecord(start_.get(), stream));
    for (int i = 0; i < calls; ++i) {
      enqueue(stream);
    }
    KT_CUDA_CHECK(cudaEventRecord(stop_.get(), stream));
    KT_CUDA_CHECK(cudaEventSynchronize(stop_.get()));
    float ms = 0;
    KT_CUDA_CHECK(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
    return static_cast<double>(ms) * 1000.0 / calls;
  }

private:
  cuda_event start_;
  cuda_event stop_;
};

} // namespace

std::vector<double> time_each_with_events(cudaStream_t stream, int samples,
                                          const std::function<void(cudaStream_t)>& enqueue) {
  return time_batched_with_events(stream, samples, 1, enqueue);
}

std::vector<double> time_batched_with_events(cudaStream_t stream, int samples, int batch,
                                             const std::function<void(cudaStream_t)>& enqueue) {
  event_pair events;
  // Warm up: module load and first-launch costs stay out of the samples.
  static_cast<void>(events.time_us(stream, enqueue, batch));
  std::vector<double> us;
  us.reserve(static_cast<std::size_t>(samples));
  for (int i = 0; i < samples; ++i) {
    us.push_back(events.time_us(stream, enqueue, batch));
  }
  return us;
}

} // namespace kerntime::bench
