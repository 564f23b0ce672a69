// Which calls the trials watch, learned from real activity records of the calls before them.

#include "cupti/watched_calls.hpp"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "activity_buffer.hpp"
#include "cupti/record_decoder.hpp"

namespace kerntime::detail {
namespace {

activity_log decoded(const testing::activity_buffer& records) {
  activity_log log;
  record_decoder decoder(log);
  for (const auto* record : records.records()) {
    decoder.decode(*record);
  }
  return log;
}

bool watches(const std::vector<watched_call>& calls, CUpti_CallbackDomain domain,
             CUpti_CallbackId cbid) {
  return std::find(calls.begin(), calls.end(), watched_call{domain, cbid}) != calls.end();
}

TEST(watched_calls, the_calls_that_launched_the_first_calls_records_are_watched) {
  testing::activity_buffer records;
  // A memset through the runtime (its record carries the runtime call's correlation id) and the
  // driver call the runtime made inside it; a runtime call that launched nothing.
  records.api(CUPTI_ACTIVITY_KIND_RUNTIME, 10, 1, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020);
  records.api(CUPTI_ACTIVITY_KIND_DRIVER, 11, 1, CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async);
  records.memset(100, 200, 10);
  records.api(CUPTI_ACTIVITY_KIND_RUNTIME, 12, 1, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020);
  const auto calls = calls_to_watch(decoded(records));
  EXPECT_TRUE(
      watches(calls, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020));
  EXPECT_FALSE(watches(calls, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async));
  EXPECT_FALSE(
      watches(calls, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020));
}

TEST(watched_calls, every_launch_and_every_call_that_waits_is_watched_even_if_unseen) {
  const auto calls = calls_to_watch(activity_log{});
  for (const CUpti_CallbackId cbid : {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                      CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
                                      CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
                                      CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
                                      CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020}) {
    EXPECT_TRUE(watches(calls, CUPTI_CB_DOMAIN_RUNTIME_API, cbid)) << cbid;
  }
  for (const CUpti_CallbackId cbid :
       {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
        CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize}) {
    EXPECT_TRUE(watches(calls, CUPTI_CB_DOMAIN_DRIVER_API, cbid)) << cbid;
  }
}

TEST(watched_calls, each_call_is_watched_once_in_order) {
  testing::activity_buffer records;
  records.api(CUPTI_ACTIVITY_KIND_RUNTIME, 10, 1, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
  records.kernel("k", 100, 200, 10);
  records.api(CUPTI_ACTIVITY_KIND_RUNTIME, 11, 1, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
  records.kernel("k", 200, 300, 11);
  const auto calls = calls_to_watch(decoded(records));
  EXPECT_TRUE(std::is_sorted(calls.begin(), calls.end()));
  EXPECT_EQ(std::adjacent_find(calls.begin(), calls.end()), calls.end());
}

TEST(watched_calls, a_callback_domain_names_the_activity_kind_of_its_calls) {
  EXPECT_EQ(api_kind_of(CUPTI_CB_DOMAIN_RUNTIME_API), CUPTI_ACTIVITY_KIND_RUNTIME);
  EXPECT_EQ(api_kind_of(CUPTI_CB_DOMAIN_DRIVER_API), CUPTI_ACTIVITY_KIND_DRIVER);
  EXPECT_EQ(api_kind_of(CUPTI_CB_DOMAIN_RESOURCE), CUPTI_ACTIVITY_KIND_INVALID);
}

} // namespace
} // namespace kerntime::detail
