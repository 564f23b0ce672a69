// A kerntime program for the detection check of `kerntime ab` (bench/ab/ab_cli_check.sh,
// docs/ab.md): spin/duration_us=20 and =200, each a kernel that spins on the GPU's nanosecond
// clock for duration × AB_SPIN_SCALE (default 1). The same program started with
// AB_SPIN_SCALE=1.01 is B to the plain one's A: a known change of exactly 1 %.

#include <cstdint>
#include <cstdlib>

#include "kerntime/benchmark.hpp"
#include "kerntime/cuda.hpp"

namespace {

__global__ void ab_spin_kernel(std::uint64_t duration_ns) {
  kerntime::spin_for_ns(duration_ns);
}

double spin_scale() {
  const char* given = std::getenv("AB_SPIN_SCALE");
  return given != nullptr ? std::atof(given) : 1.0; // NOLINT(cert-err34-c): a benchmark's knob
}

void spin(kerntime::state& s) {
  const auto duration_ns = static_cast<std::uint64_t>(
      static_cast<double>(s.get_int("duration_us")) * 1000 * spin_scale());
  s.exec([&](cudaStream_t stream, int) {
    ab_spin_kernel<<<1, 1, 0, stream>>>(duration_ns);
    kerntime::check_launch("ab_spin_kernel");
  });
}

} // namespace

KERNTIME_BENCHMARK(spin).add_int_axis("duration_us", {20, 200});
