// kerntime's own launch-bound reference (measure/reference_work.hpp), which `kerntime ab`'s
// workers measure every round: 16 one-warp launches per iteration, timed through CUPTI under the
// protocol it is given; and the one stream a worker may set for all its measurements
// (measure/kept_resources.hpp, use_one_stream), which the work then runs on unless it is
// launched as a CUDA graph.

#include <cuda_runtime_api.h>

#include <kerntime/measure.hpp>

#include <chrono>
#include <functional>
#include <string>

#include "gpu_test.hpp"
#include "measure/kept_resources.hpp"
#include "measure/reference_work.hpp"
#include "spin_kernel.hpp"

namespace kerntime::gpu_tests {
namespace {

class reference_work : public gpu_test {
protected:
  // One trial after one warm-up call of a 5 µs spin, which notes the stream it was given.
  static protocol one_trial() {
    protocol p;
    p.trials = 1;
    p.warmup = 1;
    p.warmup_auto = false;
    return p;
  }
  cudaStream_t seen = nullptr;
  std::function<void(cudaStream_t, int)> spin_on = [this](cudaStream_t stream, int) {
    seen = stream;
    testkit::launch_spin(stream, std::chrono::microseconds(5));
  };
};

TEST_F(reference_work, sixteen_one_warp_launches_per_iteration_timed_by_cupti) {
  protocol p;
  p.trials = 1;
  p.backend = backend_request::cupti;
  const measurement_result r = detail::measure_reference(p);
  EXPECT_EQ(r.backend, timing_backend::cupti);
  ASSERT_EQ(r.kernels.size(), 1U);
  EXPECT_NE(r.kernels[0].name.find("bump_counter"), std::string::npos) << r.kernels[0].name;
  EXPECT_DOUBLE_EQ(r.kernels[0].calls_per_iteration, detail::reference_launches);
  // 16 launches of a kernel well under a microsecond, with launch gaps between them: a few tens
  // of microseconds on an H100 or H200 (docs/ab.md), never under 16 short kernels' worth.
  EXPECT_GT(r.latency_ns, 2'000);
  EXPECT_LT(r.latency_ns, 500'000);
}

TEST_F(reference_work, a_stream_set_for_all_is_the_one_every_measurement_runs_on) {
  const detail::one_stream_scope shared;
  const protocol p = one_trial();
  (void)measure(spin_on, p);
  EXPECT_EQ(seen, shared.get());
  (void)detail::measure_reference(p); // the reference too, without complaint
  detail::use_one_stream(nullptr);    // the shared stream still lives: no handle is reused
  (void)measure(spin_on, p);
  EXPECT_NE(seen, shared.get()); // a stream of the measurement's own again
  EXPECT_EQ(detail::one_stream(), nullptr);
}

TEST_F(reference_work, a_graph_launch_keeps_off_the_stream_set_for_all) {
  const detail::one_stream_scope shared;
  protocol p = one_trial();
  p.launch = launch_mode::graph; // captured once, then launched as a graph
  const measurement_result r = measure(spin_on, p);
  EXPECT_GT(r.latency_ns, 4'000);
  ASSERT_NE(seen, nullptr);
  EXPECT_NE(seen, shared.get()); // a graph does not follow the reference's mode (docs/ab.md)
  p.launch = launch_mode::stream;
  (void)measure(spin_on, p);
  EXPECT_EQ(seen, shared.get());
}

} // namespace
} // namespace kerntime::gpu_tests
