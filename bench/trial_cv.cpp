// Run-to-run stability: the coefficient of variation of the trial means (default protocol) for
// spin kernels of 20 and 50 us and a 256 MiB device-to-device copy over rotating inputs.

#include <kerntime/measure.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

#include "cuda_check.hpp"

#include "result_line.hpp"
#include "spin_kernel.hpp"

namespace {

using namespace kerntime;

void report(const std::string& name, const work_function& work) {
  const measurement_result r = measure(work, protocol{});
  bench::result_line("trial_cv")
      .add("work", name)
      .add("backend", to_string(r.backend))
      .add("median_us", r.latency_ns / 1e3)
      .add("cv_of_means_pct", 100.0 * r.trials_summary.cv_of_means)
      .add("cv_pct", 100.0 * r.stats.cv)
      .add("throttled_trials", static_cast<double>(std::count_if(
                                   r.trials.begin(), r.trials.end(),
                                   [](const trial_result& t) { return t.telemetry.throttled; })))
      .print();
}

} // namespace

int main() try {
  using std::chrono::microseconds;
  report("spin_20us", [](cudaStream_t s, int) { testkit::launch_spin(s, microseconds(20)); });
  report("spin_50us", [](cudaStream_t s, int) { testkit::launch_spin(s, microseconds(50)); });

  constexpr std::size_t copy_bytes = std::size_t{256} << 20;
  const int sets = protocol{}.input_sets;
  device_buffer<char> source(copy_bytes * sets);
  device_buffer<char> destination(copy_bytes * sets);
  KT_CUDA_CHECK(cudaMemset(source.data(), 0x3c, source.bytes()));
  report("copy_256mib", [&](cudaStream_t s, int set) {
    const std::size_t offset = copy_bytes * static_cast<std::size_t>(set);
    KT_CUDA_CHECK(cudaMemcpyAsync(destination.data() + offset, source.data() + offset, copy_bytes,
                                  cudaMemcpyDeviceToDevice, s));
  });
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "trial_cv: %s\n", e.what());
  return 1;
}
