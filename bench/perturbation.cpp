// Does timing with kerntime (CUPTI attached) change what it times? An empty kernel and a 10 us
// kernel, timed by a bare CUDA-event loop before, by kerntime, and by the same loop after
// kerntime detached (CUPTI's instrumentation must be gone by then).

#include <kerntime/measure.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <string>

#include "event_timing.hpp"
#include "kerntime/statistics.hpp"

#include "cuda_check.hpp"
#include "result_line.hpp"
#include "spin_kernel.hpp"

namespace {

using namespace kerntime;

void compare(const std::string& name, const std::function<void(cudaStream_t)>& launch) {
  cuda_stream stream;
  constexpr int samples = 200;
  constexpr int batch = 100;
  const double each_before =
      kerntime::median(bench::time_each_with_events(stream.get(), samples, launch));
  const double batched_before =
      kerntime::median(bench::time_batched_with_events(stream.get(), 20, batch, launch));
  const measurement_result r =
      measure([&](cudaStream_t s, int) { launch(s); }, protocol{}, stream.get());
  const double each_after =
      kerntime::median(bench::time_each_with_events(stream.get(), samples, launch));
  const double batched_after =
      kerntime::median(bench::time_batched_with_events(stream.get(), 20, batch, launch));
  bench::result_line("perturbation")
      .add("kernel", name)
      .add("backend", to_string(r.backend))
      .add("events_us", each_before)
      .add("events_batched_us", batched_before)
      .add("kerntime_us", r.latency_ns / 1e3)
      .add("events_after_us", each_after)
      .add("events_batched_after_us", batched_after)
      .print();
}

} // namespace

int main() try {
  compare("empty", [](cudaStream_t s) { testkit::launch_empty(s); });
  compare("spin_10us",
          [](cudaStream_t s) { testkit::launch_spin(s, std::chrono::microseconds(10)); });
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "perturbation: %s\n", e.what());
  return 1;
}
