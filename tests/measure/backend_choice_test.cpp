#include "measure/backend_choice.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kerntime::detail {
namespace {

attach_outcome failed_with(CUptiResult result) {
  attach_outcome o;
  o.result = result;
  o.detail = "cuptiSubscribe returned " + std::to_string(static_cast<int>(result));
  return o;
}

attach_outcome attached() {
  attach_outcome o;
  o.attached = true;
  return o;
}

class unavailable_codes : public ::testing::TestWithParam<CUptiResult> {};

TEST_P(unavailable_codes, fall_back_to_events_in_auto_and_fail_in_strict_mode) {
  const attach_outcome outcome = failed_with(GetParam());
  const auto automatic = decide_backend(backend_request::automatic, 0, "", outcome);
  EXPECT_EQ(automatic.action, backend_action::use_events);
  EXPECT_NE(automatic.reason.find("CUPTI unavailable"), std::string::npos);
  EXPECT_NE(automatic.reason.find(outcome.detail), std::string::npos);
  const auto strict = decide_backend(backend_request::cupti, 0, "", outcome);
  EXPECT_EQ(strict.action, backend_action::fail_unavailable);
  EXPECT_NE(strict.reason.find(outcome.detail), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    attach_errors, unavailable_codes,
    ::testing::Values(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, CUPTI_ERROR_NOT_SUPPORTED,
                      CUPTI_ERROR_INSUFFICIENT_PRIVILEGES,
                      CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED,
                      CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES,
                      CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED, CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED,
                      CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED,
                      CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED, CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED,
                      CUPTI_ERROR_NOT_COMPATIBLE, CUPTI_ERROR_NOT_INITIALIZED,
                      CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED));

TEST(backend_choice, another_subscriber_names_the_likely_culprits) {
  const auto d = decide_backend(backend_request::automatic, 0, "",
                                failed_with(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED));
  EXPECT_NE(d.reason.find("Nsight Compute"), std::string::npos);
}

TEST(backend_choice, a_load_failure_means_unavailable) {
  attach_outcome o;
  o.load_error = "cannot load CUPTI (libcupti.so.13: cannot open shared object file)";
  EXPECT_EQ(decide_backend(backend_request::automatic, 0, "", o).action,
            backend_action::use_events);
  const auto strict = decide_backend(backend_request::cupti, 0, "", o);
  EXPECT_EQ(strict.action, backend_action::fail_unavailable);
  EXPECT_NE(strict.reason.find("libcupti.so.13"), std::string::npos);
}

TEST(backend_choice, an_unexpected_cupti_error_is_not_hidden_behind_a_fallback) {
  for (const auto code :
       {CUPTI_ERROR_UNKNOWN, CUPTI_ERROR_INVALID_PARAMETER, CUPTI_ERROR_OUT_OF_MEMORY}) {
    const auto d = decide_backend(backend_request::automatic, 0, "", failed_with(code));
    EXPECT_EQ(d.action, backend_action::fail_invalid) << code;
  }
}

TEST(backend_choice, a_cuda_error_from_the_benchmark_is_a_failure_never_a_fallback) {
  for (const auto request :
       {backend_request::automatic, backend_request::cupti, backend_request::events}) {
    for (const auto& outcome : {attached(), failed_with(CUPTI_ERROR_NOT_SUPPORTED)}) {
      const auto d = decide_backend(request, 700, "cudaErrorIllegalAddress", outcome);
      EXPECT_EQ(d.action, backend_action::fail_benchmark);
      EXPECT_NE(d.reason.find("cudaErrorIllegalAddress"), std::string::npos);
    }
  }
}

TEST(backend_choice, events_on_request_and_cupti_when_attached) {
  EXPECT_EQ(decide_backend(backend_request::events, 0, "", attach_outcome{}).action,
            backend_action::use_events);
  EXPECT_EQ(decide_backend(backend_request::automatic, 0, "", attached()).action,
            backend_action::use_cupti);
  EXPECT_EQ(decide_backend(backend_request::cupti, 0, "", attached()).action,
            backend_action::use_cupti);
}

TEST(backend_choice, the_mode_names_how_cupti_was_held) {
  EXPECT_EQ(decide_backend(backend_request::automatic, 0, "", attached()).mode,
            cupti_mode::subscribed);
  EXPECT_EQ(decide_backend(backend_request::events, 0, "", attached()).mode, cupti_mode::none);
  EXPECT_EQ(
      decide_backend(backend_request::automatic, 0, "", failed_with(CUPTI_ERROR_NOT_SUPPORTED))
          .mode,
      cupti_mode::none);

  attach_outcome shared = attached();
  shared.shared = true;
  shared.holder = cupti_holder::idle_torch_profiler;
  for (const auto request : {backend_request::automatic, backend_request::cupti}) {
    const auto d = decide_backend(request, 0, "", shared);
    EXPECT_EQ(d.action, backend_action::use_cupti);
    EXPECT_EQ(d.mode, cupti_mode::shared_with_idle_torch_profiler);
    EXPECT_NE(d.reason.find("CUPTI activity records, shared with an idle torch.profiler"),
              std::string::npos)
        << d.reason;
  }
}

// The reason a refused subscription gives is the holder the caller named, first, in the words
// every output repeats; the CUPTI error follows.
TEST(backend_choice, a_refused_subscription_names_who_holds_cupti) {
  const struct {
    cupti_holder holder;
    const char* words;
  } holders[] = {
      {cupti_holder::torch_profiler_recording, "CUPTI unavailable: torch.profiler is recording ("},
      {cupti_holder::torch_profiler_armed, "CUPTI unavailable: torch.profiler is armed ("},
      {cupti_holder::kineto_daemon, "CUPTI unavailable: torch.profiler may start at any moment ("},
      {cupti_holder::injected_tool, "CUPTI unavailable: held by another tool (CUDA_INJECTION64"},
      {cupti_holder::unknown, "CUPTI unavailable: held by another tool (a profiler such as"},
  };
  for (const auto& [holder, words] : holders) {
    attach_outcome o = failed_with(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    o.holder = holder;
    const auto automatic = decide_backend(backend_request::automatic, 0, "", o);
    EXPECT_EQ(automatic.action, backend_action::use_events);
    EXPECT_EQ(automatic.reason.rfind(words, 0), 0U) << automatic.reason;
    EXPECT_NE(automatic.reason.find("(cuptiSubscribe returned 39)"), std::string::npos)
        << automatic.reason;
    const auto strict = decide_backend(backend_request::cupti, 0, "", o);
    EXPECT_EQ(strict.action, backend_action::fail_unavailable);
    EXPECT_EQ(strict.reason, automatic.reason.substr(std::string("CUPTI unavailable: ").size()));
  }
}

} // namespace
} // namespace kerntime::detail
