// Another tool holding CUPTI (a profiler, another kerntime) makes CUPTI unavailable: `automatic`
// falls back to CUDA events and says why, `cupti` refuses. CUPTI's subscriber is process-wide,
// so this is its own executable. The test subscribes through the same loaded libcupti that
// kerntime uses, so both see one CUPTI.

#include <kerntime/errors.hpp>
#include <kerntime/measure.hpp>

#include <chrono>
#include <string>
#include <variant>

#include "cupti/cupti_library.hpp"
#include "gpu_test.hpp"
#include "result_queries.hpp"
#include "spin_kernel.hpp"

namespace kerntime::gpu_tests {
namespace {

void CUPTIAPI ignore_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

const work_function spin_10us = [](cudaStream_t stream, int) {
  testkit::launch_spin(stream, std::chrono::microseconds(10));
};

protocol short_protocol(backend_request backend) {
  protocol p;
  p.backend = backend;
  p.warmup = 2;
  p.trials = 2;
  p.repeats = 10;
  return p;
}

bool mentions_the_other_subscriber(const std::string& text) {
  const std::string lower = lowercase(text);
  return lower.find("subscriber") != std::string::npos;
}

class cupti_held_elsewhere : public gpu_test {
protected:
  void SetUp() override {
    gpu_test::SetUp();
    if (IsSkipped()) {
      return;
    }
    auto loaded = detail::load_cupti();
    ASSERT_TRUE(std::holds_alternative<const detail::cupti_library*>(loaded))
        << "CUPTI must load on the GPU machine: " << std::get<std::string>(loaded);
    cupti_ = std::get<const detail::cupti_library*>(loaded);
    const CUptiResult result = cupti_->subscribe(&subscriber_, ignore_callback, nullptr);
    ASSERT_EQ(result, CUPTI_SUCCESS) << cupti_->describe(result);
    held_ = true;
  }

  void TearDown() override { release(); }

  void release() {
    if (held_) {
      held_ = false;
      const CUptiResult result = cupti_->unsubscribe(subscriber_);
      EXPECT_EQ(result, CUPTI_SUCCESS) << cupti_->describe(result);
    }
  }

  const detail::cupti_library* cupti_ = nullptr;
  CUpti_SubscriberHandle subscriber_ = nullptr;
  bool held_ = false;
};

TEST_F(cupti_held_elsewhere, automatic_falls_back_to_events_and_says_why) {
  const measurement_result r = measure(spin_10us, short_protocol(backend_request::automatic));
  EXPECT_EQ(r.backend, timing_backend::events);
  EXPECT_TRUE(mentions_the_other_subscriber(r.backend_reason)) << r.backend_reason;
  EXPECT_FALSE(r.warnings.empty()) << "the fallback must warn";
  EXPECT_TRUE(r.kernels.empty()) << "CUDA events see no kernels";
  EXPECT_GE(r.latency_ns, 10'000.0);
}

// Counters asked for while another subscriber holds CUPTI: timing falls back to events, and the
// counters block says unavailable with the reason instead of failing the result.
TEST_F(cupti_held_elsewhere, counters_say_unavailable_and_why) {
  protocol p = short_protocol(backend_request::automatic);
  p.counters = true;
  const measurement_result r = measure(spin_10us, p);
  EXPECT_EQ(r.backend, timing_backend::events);
  EXPECT_EQ(r.counters.status, counters_status::unavailable);
  EXPECT_FALSE(r.counters.reason.empty());
  EXPECT_TRUE(mentions_the_other_subscriber(r.counters.reason) ||
              lowercase(r.counters.reason).find("cupti") != std::string::npos)
      << r.counters.reason;
  EXPECT_GE(r.latency_ns, 10'000.0) << "the timing result stands";
  RecordProperty("reason", r.counters.reason);
}

TEST_F(cupti_held_elsewhere, cupti_backend_refuses_with_cupti_unavailable) {
  try {
    const measurement_result r = measure(spin_10us, short_protocol(backend_request::cupti));
    FAIL() << "measure returned with backend " << to_string(r.backend) << " although CUPTI is held";
  } catch (const cupti_unavailable& e) {
    EXPECT_TRUE(mentions_the_other_subscriber(e.reason())) << e.what();
  }
}

TEST_F(cupti_held_elsewhere, cupti_works_again_once_the_other_subscriber_leaves) {
  ASSERT_THROW(static_cast<void>(measure(spin_10us, short_protocol(backend_request::cupti))),
               cupti_unavailable);
  release();
  const measurement_result r = measure(spin_10us, short_protocol(backend_request::cupti));
  EXPECT_EQ(r.backend, timing_backend::cupti);
  EXPECT_FALSE(r.kernels.empty());
}

} // namespace
} // namespace kerntime::gpu_tests
