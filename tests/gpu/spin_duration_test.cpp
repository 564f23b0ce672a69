// A kernel that spins for a known time on %globaltimer must read back at least that time and at
// most 1 µs more (launch and teardown on the GPU) when CUPTI times it.

#include <kerntime/measure.hpp>

#include <chrono>

#include "gpu_test.hpp"
#include "spin_kernel.hpp"

namespace kerntime::gpu_tests {
namespace {

using std::chrono::microseconds;
using std::chrono::nanoseconds;

class spin_duration : public gpu_test, public ::testing::WithParamInterface<int> {};

TEST_P(spin_duration, reads_at_least_the_requested_time_and_within_one_microsecond) {
  const nanoseconds requested = microseconds(GetParam());
  protocol p;
  p.backend = backend_request::cupti;
  p.metric = headline_metric::span;

  const measurement_result r =
      measure([&](cudaStream_t stream, int) { testkit::launch_spin(stream, requested); }, p);

  const double requested_ns = static_cast<double>(requested.count());
  EXPECT_EQ(r.backend, timing_backend::cupti);
  EXPECT_GE(r.latency_ns, requested_ns);
  EXPECT_LE(r.latency_ns, requested_ns + 1000.0);
  EXPECT_GE(r.span.min, requested_ns) << "an iteration read shorter than the kernel spun";
  RecordProperty("latency_ns", std::to_string(r.latency_ns));
}

INSTANTIATE_TEST_SUITE_P(microseconds, spin_duration, ::testing::Values(5, 20, 100),
                         [](const auto& info) { return std::to_string(info.param) + "us"; });

} // namespace
} // namespace kerntime::gpu_tests
