// A CUDA fault raised by the benchmarked code is the benchmark's failure, reported with its CUDA
// error, never a reason to fall back to another timer and never an "invalid measurement" (after
// an illegal address CUPTI still answers success and hands back zero timestamps).
// The fault kills the CUDA context, so each case runs in a fresh child process (a death test in
// the "threadsafe" style re-executes this binary) and reports through its exit code.

#include <kerntime/errors.hpp>
#include <kerntime/measure.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "fault_kernel.hpp"
#include "gpu_test.hpp"
#include "spin_kernel.hpp"

namespace kerntime::gpu_tests {
namespace {

// Runs a measurement whose call number `faulting_call` (0-based, warmup included) writes to an
// illegal address. Exits 0 only when measure throws benchmark_failed naming that error.
[[noreturn]] void measure_with_fault_at_call(int faulting_call, backend_request backend) {
  protocol p;
  p.backend = backend;
  p.warmup = 2;
  p.trials = 2;
  p.repeats = 5;
  int calls = 0;
  try {
    const measurement_result r = measure(
        [&](cudaStream_t stream, int) {
          if (calls++ == faulting_call) {
            testkit::launch_illegal_address_write(stream);
          } else {
            testkit::launch_spin(stream, std::chrono::microseconds(2));
          }
        },
        p);
    std::fprintf(stderr, "measure returned a result (backend %s) after the fault\n",
                 std::string(to_string(r.backend)).c_str());
    std::_Exit(1);
  } catch (const benchmark_failed& e) {
    std::fprintf(stderr, "benchmark_failed: %s (cuda_error %d, where '%s')\n", e.what(),
                 e.cuda_error(), e.where().c_str());
    // _Exit: the context is dead; skip static destructors and CUPTI's exit handlers.
    std::_Exit(e.cuda_error() == cudaErrorIllegalAddress && !e.where().empty() ? 0 : 2);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "wrong error type: %s\n", e.what());
    std::_Exit(3);
  }
}

class benchmark_failure : public gpu_test {
protected:
  void SetUp() override {
    gpu_test::SetUp();
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }
};

TEST_F(benchmark_failure, an_illegal_address_in_warmup_is_a_benchmark_failure) {
  // The last warmup call faults: the next launch is kerntime's own, not the workload's, whose
  // error check would otherwise report the pending fault as its own exception first.
  EXPECT_EXIT(measure_with_fault_at_call(1, backend_request::automatic),
              ::testing::ExitedWithCode(0), "benchmark_failed");
}

TEST_F(benchmark_failure, an_illegal_address_while_cupti_is_attached_is_a_benchmark_failure) {
  // Call warmup + 1 (the discarded iteration) + 3: a measured iteration with CUPTI attached.
  EXPECT_EXIT(measure_with_fault_at_call(2 + 1 + 3, backend_request::cupti),
              ::testing::ExitedWithCode(0), "benchmark_failed");
}

TEST_F(benchmark_failure, an_illegal_address_under_the_event_fallback_is_a_benchmark_failure) {
  EXPECT_EXIT(measure_with_fault_at_call(2 + 3, backend_request::events),
              ::testing::ExitedWithCode(0), "benchmark_failed");
}

} // namespace
} // namespace kerntime::gpu_tests
