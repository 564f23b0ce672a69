// What kerntime costs on the host: the wall time of the default protocol for a 10 us kernel
// against the GPU time it cannot avoid, (flush + kernel) x iterations; the fixed cost of one
// measurement (allocation, CUPTI attach and detach, telemetry); the first measurement of a
// process (CUPTI loaded and first subscribed) against later ones.

#include <kerntime/measure.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.hpp"

#include "event_timing.hpp"
#include "flush/l2_flush.hpp"
#include "kerntime/statistics.hpp"

#include "result_line.hpp"
#include "spin_kernel.hpp"

namespace {

using namespace kerntime;

struct timed_measurement {
  measurement_result result;
  double wall_ms = 0;
};

timed_measurement measure_wall(const work_function& work, const protocol& p) {
  const auto start = std::chrono::steady_clock::now();
  measurement_result r = measure(work, p);
  const std::chrono::duration<double, std::milli> wall = std::chrono::steady_clock::now() - start;
  return {std::move(r), wall.count()};
}

// The GPU time of one flush as kerntime runs it (a memset, then a read-back of the buffer), timed
// by kerntime itself with the flush as the work and no flush around it.
double flush_us(std::size_t bytes) {
  detail::l2_flush flush(bytes);
  protocol p;
  p.flush_l2 = false;
  return measure([&](cudaStream_t s, int) { flush.enqueue(s); }, p).latency_ns / 1e3;
}

} // namespace

int main() try {
  const work_function spin_10us = [](cudaStream_t stream, int) {
    testkit::launch_spin(stream, std::chrono::microseconds(10));
  };
  const protocol defaults;
  // The first measurement of the process pays for loading CUPTI and its first subscription.
  const timed_measurement first = measure_wall(spin_10us, defaults);
  std::vector<double> later_walls;
  measurement_result later;
  for (int i = 0; i < 3; ++i) {
    timed_measurement t = measure_wall(spin_10us, defaults);
    later_walls.push_back(t.wall_ms);
    later = std::move(t.result);
  }
  const double later_wall_ms = kerntime::median(later_walls);

  // The smallest protocol: two iterations (the discarded one and one measured), so its wall
  // time is the fixed cost of a measurement plus two iterations of GPU time.
  protocol smallest;
  smallest.warmup = 0;
  smallest.trials = 1;
  smallest.repeats = 1;
  smallest.input_sets = 1;
  std::vector<double> smallest_walls;
  smallest_walls.reserve(3);
  measurement_result smallest_result;
  for (int i = 0; i < 3; ++i) {
    timed_measurement t = measure_wall(spin_10us, smallest);
    smallest_walls.push_back(t.wall_ms);
    smallest_result = std::move(t.result);
  }

  const double flush = flush_us(later.flush_bytes);
  const double kernel = later.latency_ns / 1e3;
  const int iterations = defaults.warmup + 1 + defaults.trials * defaults.repeats;
  const double gpu_ms = iterations * (flush + kernel) / 1e3;
  const double fixed_ms = kerntime::median(smallest_walls) - 2 * (flush + kernel) / 1e3;
  std::printf("iterations=%d flush=%.2f us kernel=%.2f us backend=%s\n", iterations, flush, kernel,
              std::string(to_string(later.backend)).c_str());
  bench::result_line("host_cost")
      .add("backend", to_string(later.backend))
      .add("wall_ms", later_wall_ms)
      .add("first_wall_ms", first.wall_ms)
      .add("gpu_ms", gpu_ms)
      .add("ratio", later_wall_ms / gpu_ms)
      .add("ratio_without_fixed", (later_wall_ms - fixed_ms) / gpu_ms)
      .add("fixed_ms", fixed_ms)
      .add("flush_us", flush)
      .add("kernel_us", kernel)
      .print();
  // Where the wall time went (host_phases), for a default measurement and the smallest one.
  for (const auto& [protocol_name, r] :
       {std::pair<const char*, const measurement_result*>{"default", &later},
        {"smallest", &smallest_result}}) {
    bench::result_line line("host_phases");
    line.add("protocol", protocol_name).add("wall_ms", r->wall_seconds * 1e3);
    for (const auto& [name, field] : host_phase_names) {
      line.add(std::string(name) + "_ms", r->phases.*field * 1e3);
    }
    line.print();
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "host_cost: %s\n", e.what());
  return 1;
}
