#include "event_timing.hpp"

#include <algorithm>
#include <stdexcept>

#include "cuda_check.hpp"

namespace kerntime::bench {
namespace {

class event_pair {
public:
  event_pair() {
    KT_CUDA_CHECK(cudaEventCreate(&start_));
    KT_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~event_pair() {
    static_cast<void>(cudaEventDestroy(start_));
    static_cast<void>(cudaEventDestroy(stop_));
  }
  event_pair(const event_pair&) = delete;
  event_pair& operator=(const event_pair&) = delete;
  event_pair(event_pair&&) = delete;
  event_pair& operator=(event_pair&&) = delete;

  double time_us(cudaStream_t stream, const std::function<void(cudaStream_t)>& enqueue, int calls) {
    KT_CUDA_CHECK(cudaEventRecord(start_, stream));
    for (int i = 0; i < calls; ++i) {
      enqueue(stream);
    }
    KT_CUDA_CHECK(cudaEventRecord(stop_, stream));
    KT_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0;
    KT_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return static_cast<double>(ms) * 1000.0 / calls;
  }

private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
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

double median(std::vector<double> values) {
  if (values.empty()) {
    throw std::invalid_argument("median of no values");
  }
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle),
                   values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) {
    return upper;
  }
  return (upper +
          *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle))) /
         2.0;
}

} // namespace kerntime::bench
