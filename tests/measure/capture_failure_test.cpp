// Graph mode's refusals in words: every capture error the runtime gives names what the work did
// and how to fix it, and errors that are not about capture stay the benchmark's own.

#include <gtest/gtest.h>

#include <kerntime/errors.hpp>

#include "measure/capture_failure.hpp"

namespace kerntime::detail {
namespace {

TEST(capture_failure, every_stream_capture_error_is_explained_with_a_fix) {
  for (const cudaError_t error : {cudaErrorStreamCaptureUnsupported,
                                  cudaErrorStreamCaptureInvalidated, cudaErrorStreamCaptureMerge,
                                  cudaErrorStreamCaptureUnmatched, cudaErrorStreamCaptureUnjoined,
                                  cudaErrorStreamCaptureIsolation, cudaErrorStreamCaptureImplicit,
                                  cudaErrorCapturedEvent, cudaErrorStreamCaptureWrongThread}) {
    const auto failure = explain_capture_error(error);
    ASSERT_TRUE(failure.has_value()) << cudaGetErrorName(error);
    EXPECT_FALSE(failure->why.empty()) << cudaGetErrorName(error);
    // The way out that always exists is named in every fix.
    EXPECT_NE(failure->fix.find("--cuda-graph"), std::string::npos) << failure->fix;
  }
}

TEST(capture_failure, a_synchronizing_or_allocating_call_is_named_as_such) {
  const auto failure = explain_capture_error(cudaErrorStreamCaptureUnsupported);
  ASSERT_TRUE(failure.has_value());
  EXPECT_NE(failure->why.find("synchronized with the host"), std::string::npos) << failure->why;
  EXPECT_NE(failure->why.find("cudaMalloc"), std::string::npos) << failure->why;
  EXPECT_NE(failure->fix.find("outside the work"), std::string::npos) << failure->fix;
}

TEST(capture_failure, the_legacy_stream_is_named_with_the_stream_to_use_instead) {
  const auto failure = explain_capture_error(cudaErrorStreamCaptureImplicit);
  ASSERT_TRUE(failure.has_value());
  EXPECT_NE(failure->why.find("legacy default stream"), std::string::npos) << failure->why;
  EXPECT_NE(failure->fix.find("the stream kerntime passes"), std::string::npos) << failure->fix;
  EXPECT_NE(stream_not_capturable().fix.find("pass a stream you created"), std::string::npos);
}

TEST(capture_failure, an_error_of_the_work_itself_is_not_a_capture_failure) {
  for (const cudaError_t error : {cudaSuccess, cudaErrorIllegalAddress, cudaErrorInvalidValue,
                                  cudaErrorLaunchFailure, cudaErrorMemoryAllocation}) {
    EXPECT_FALSE(explain_capture_error(error).has_value()) << cudaGetErrorName(error);
  }
}

TEST(capture_failure, the_error_is_a_typed_kind_whose_message_holds_why_the_error_and_the_fix) {
  const auto failure = *explain_capture_error(cudaErrorStreamCaptureUnjoined);
  const work_not_capturable e("cudaErrorStreamCaptureUnjoined", failure.why, failure.fix);
  EXPECT_EQ(e.kind(), error_kind::not_capturable);
  EXPECT_EQ(error_kind_of(e), error_kind::not_capturable);
  EXPECT_EQ(to_string(e.kind()), "not_capturable");
  EXPECT_EQ(parse_error_kind("not_capturable"), error_kind::not_capturable);
  EXPECT_EQ(std::string(e.what()), "the work cannot be captured into a CUDA graph: " + failure.why +
                                       " (cudaErrorStreamCaptureUnjoined); " + failure.fix);
  // An empty capture has no CUDA error to name.
  const work_not_capturable empty("", empty_capture().why, empty_capture().fix);
  EXPECT_EQ(std::string(empty.what()).find("()"), std::string::npos) << empty.what();
}

} // namespace
} // namespace kerntime::detail
