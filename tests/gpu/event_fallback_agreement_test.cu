// The event fallback has CUPTI's envelope (flush outside the window, launch gaps hidden behind a
// blocking kernel), so for a long kernel the two timers agree closely.

#include <kerntime/measure.hpp>

#include <chrono>
#include <cmath>

#include "gpu_test.hpp"
#include "spin_kernel.hpp"

namespace kerntime::gpu_tests {
namespace {

class event_fallback_agreement : public gpu_test, public ::testing::WithParamInterface<int> {};

TEST_P(event_fallback_agreement, agrees_with_cupti_within_two_percent) {
  const std::chrono::nanoseconds spin = std::chrono::microseconds(GetParam());
  const work_function work = [&](cudaStream_t stream, int) {
    gpu_workloads::launch_spin(stream, spin);
  };
  protocol p;
  p.backend = backend_request::cupti;
  const measurement_result cupti = measure(work, p);
  p.backend = backend_request::events;
  const measurement_result events = measure(work, p);

  ASSERT_EQ(cupti.backend, timing_backend::cupti);
  ASSERT_EQ(events.backend, timing_backend::events);
  const double relative = std::abs(events.latency_ns - cupti.latency_ns) / cupti.latency_ns;
  EXPECT_LE(relative, 0.02) << "events " << events.latency_ns << " ns, CUPTI " << cupti.latency_ns
                            << " ns";
  RecordProperty("cupti_ns", std::to_string(cupti.latency_ns));
  RecordProperty("events_ns", std::to_string(events.latency_ns));
}

INSTANTIATE_TEST_SUITE_P(spin_microseconds, event_fallback_agreement, ::testing::Values(50, 100),
                         [](const auto& info) { return std::to_string(info.param) + "us"; });

} // namespace
} // namespace kerntime::gpu_tests
