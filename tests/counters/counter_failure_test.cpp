// The `unavailable` reason of the counters block for each CUPTI error code that stops the
// counter pass, and the step that returned it.

#include "counters/counter_failure.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>

namespace kerntime::detail {
namespace {

// gtest's own assertion, so a failure prints the whole reason and every part it lacks.
::testing::AssertionResult contains(const std::string& reason,
                                    std::initializer_list<std::string_view> parts) {
  std::string lacks;
  for (const std::string_view part : parts) {
    if (reason.find(part) == std::string::npos) {
      lacks += (lacks.empty() ? "\"" : ", \"") + std::string(part) + "\"";
    }
  }
  if (lacks.empty()) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "\"" << reason << "\" lacks " << lacks;
}
::testing::AssertionResult contains(const std::string& reason, std::string_view part) {
  return contains(reason, {part});
}

TEST(counter_failure, insufficient_privileges_names_the_driver_setting_and_the_fix) {
  EXPECT_TRUE(
      contains(counter_failure_reason(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, counter_step::enable),
               {"insufficient privileges", "NVreg_RestrictProfilingToAdminUsers=1",
                "ERR_NVGPUCTRPERM", "NVreg_RestrictProfilingToAdminUsers=0",
                "(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES from range profiler enable)"}));
}

TEST(counter_failure, a_vgpu_names_the_vgpu_and_whether_the_hypervisor_or_cupti_refused) {
  EXPECT_TRUE(contains(counter_failure_reason(CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED,
                                              counter_step::profiler_initialise),
                       "vGPU: CUPTI does not profile this virtualized GPU (CUPTI's vGpu support "
                       "level: unsupported)"));
  EXPECT_TRUE(
      contains(counter_failure_reason(CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES,
                                      counter_step::enable),
               "vGPU: the hypervisor does not allow profiling"));
}

TEST(counter_failure, an_unsupported_device_names_what_it_is) {
  EXPECT_TRUE(contains(
      counter_failure_reason(CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED, counter_step::device_check),
      "unsupported device: an NVIDIA Crypto Mining Processor (CMP)"));
  EXPECT_TRUE(contains(
      counter_failure_reason(CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED, counter_step::device_check),
      "unsupported device: SLI is enabled"));
  EXPECT_TRUE(contains(
      counter_failure_reason(CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED, counter_step::device_check),
      "unsupported device: CUPTI does not profile this GPU under WSL"));
  EXPECT_TRUE(contains(counter_failure_reason(CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED,
                                              counter_step::device_check),
                       "unsupported device: confidential computing mode is on"));
  EXPECT_TRUE(contains(counter_failure_reason(CUPTI_ERROR_NOT_SUPPORTED, counter_step::enable),
                       "unsupported device: the range profiler does not support this GPU"));
  EXPECT_TRUE(
      contains(counter_failure_reason(CUPTI_ERROR_INVALID_CHIP_NAME, counter_step::set_config),
               "unsupported device: this CUPTI does not know the GPU's chip"));
}

TEST(counter_failure, a_mig_instance_says_shared_units_metrics_are_not_available) {
  EXPECT_TRUE(
      contains(counter_failure_reason(CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED, counter_step::enable),
               {"MIG:", "DRAM and L2 are shared with the other instances", "n/a"}));
}

TEST(counter_failure, another_profiler_holding_the_counters_or_cupti_says_so) {
  EXPECT_TRUE(contains(counter_failure_reason(CUPTI_ERROR_HARDWARE_BUSY, counter_step::start),
                       "another profiler holds the GPU's performance counters (Nsight Compute"));
  EXPECT_TRUE(contains(counter_failure_reason(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
                                              counter_step::profiler_initialise),
                       "another profiler holds CUPTI (Nsight Systems, Nsight Compute"));
  EXPECT_TRUE(
      contains(counter_failure_reason(CUPTI_ERROR_DISABLED, counter_step::profiler_initialise),
               "another profiler holds CUPTI"));
  EXPECT_TRUE(contains(counter_failure_reason(CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED,
                                              counter_step::profiler_initialise),
                       "another profiler holds CUPTI: the legacy event/metric API"));
}

TEST(counter_failure, not_initialized_at_profiler_initialise_is_a_kerntime_ordering_bug) {
  EXPECT_TRUE(contains(
      counter_failure_reason(CUPTI_ERROR_NOT_INITIALIZED, counter_step::profiler_initialise),
      "a kerntime bug: the counter pass ran after timing had finalised CUPTI"));
  EXPECT_TRUE(contains(counter_failure_reason(CUPTI_ERROR_NOT_INITIALIZED, counter_step::enable),
                       "CUPTI could not initialise its connection to the CUDA driver"));
}

TEST(counter_failure, a_metric_not_on_this_chip_says_so) {
  EXPECT_TRUE(
      contains(counter_failure_reason(CUPTI_ERROR_INVALID_METRIC_NAME, counter_step::set_config),
               "a metric is not one of this chip's"));
  EXPECT_TRUE(
      contains(counter_failure_reason(CUPTI_ERROR_INVALID_PARAMETER, counter_step::set_config),
               "a metric is not one of this chip's"));
  EXPECT_EQ(counter_failure_reason(CUPTI_ERROR_INVALID_PARAMETER, counter_step::decode),
            "CUPTI failed during the counter pass (CUPTI_ERROR_INVALID_PARAMETER from range "
            "profiler decode)");
}

TEST(counter_failure, work_the_range_profiler_cannot_replay_names_graphs_and_concurrency) {
  EXPECT_TRUE(contains(counter_failure_reason(CUPTI_ERROR_NOT_SUPPORTED, counter_step::stop),
                       "such as graph launches or concurrent kernels"));
  EXPECT_TRUE(contains(counter_failure_reason(CUPTI_ERROR_NOT_COMPATIBLE, counter_step::start),
                       "such as a graph launch or kernels running concurrently"));
}

TEST(counter_failure, out_of_memory_explains_the_replay_save_and_restore) {
  EXPECT_TRUE(contains(counter_failure_reason(CUPTI_ERROR_OUT_OF_MEMORY, counter_step::stop),
                       "kernel replay saves and restores the work's device memory"));
}

TEST(counter_failure, a_code_without_a_reason_is_named_and_an_unlisted_code_is_its_number) {
  EXPECT_EQ(counter_failure_reason(CUPTI_ERROR_UNKNOWN, counter_step::evaluate),
            "CUPTI failed during the counter pass (CUPTI_ERROR_UNKNOWN from metric evaluation)");
  EXPECT_EQ(counter_failure_reason(static_cast<CUptiResult>(1234), counter_step::decode),
            "CUPTI failed during the counter pass (CUptiResult 1234 from range profiler decode)");
  EXPECT_EQ(cupti_result_name(CUPTI_ERROR_INVALID_CHIP_NAME), "CUPTI_ERROR_INVALID_CHIP_NAME");
}

} // namespace
} // namespace kerntime::detail
