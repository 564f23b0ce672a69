// A kernel of known duration: one thread spins on the GPU's nanosecond clock (%globaltimer) for
// duration_us. The measured latency should read the duration plus a fixed launch-to-exit cost;
// anything more is the timer's error.

#include <cstdint>

#include "cuda_check.hpp"
#include "kerntime/benchmark.hpp"

namespace kerntime::suite {
namespace {

__global__ void spin_kernel(std::uint64_t duration_ns) {
  spin_for_ns(duration_ns);
}

void spin(state& s) {
  const auto duration_us = s.get_int("duration_us");
  if (duration_us < 0 || duration_us > 10'000'000) {
    throw invalid_argument("spin: axis duration_us must be within 0..10000000");
  }
  const auto duration_ns = static_cast<std::uint64_t>(duration_us) * 1000;
  s.exec([&](cudaStream_t stream, int) {
    spin_kernel<<<1, 1, 0, stream>>>(duration_ns);
    check_launch("spin_kernel");
  });
}

} // namespace

KERNTIME_BENCHMARK(spin).add_int_axis("duration_us", {1, 10, 100});

} // namespace kerntime::suite
