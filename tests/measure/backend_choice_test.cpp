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

} // namespace
} // namespace kerntime::detail
