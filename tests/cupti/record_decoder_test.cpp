#include "cupti/record_decoder.hpp"

#include <gtest/gtest.h>

#include <string>

#include "activity_buffer.hpp"

namespace kerntime::detail {
namespace {

TEST(record_decoder, decodes_kernel_memset_memcpy_fields) {
  testing::activity_buffer buffer;
  buffer.kernel("gemm_kernel<128, 64>", 1000, 1500, 11, 3);
  buffer.memset(2000, 2100, 12, 4);
  buffer.memcpy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, 3000, 3300, 13, 5);
  const activity_log log = buffer.decode();

  ASSERT_EQ(log.gpu.size(), 3U);
  const gpu_activity& k = log.gpu[0];
  EXPECT_EQ(k.kind, activity_kind::kernel);
  EXPECT_EQ(log.names[k.name], "gemm_kernel<128, 64>");
  EXPECT_EQ(k.start, 1000U);
  EXPECT_EQ(k.end, 1500U);
  EXPECT_EQ(k.correlation_id, 11U);
  EXPECT_EQ(k.stream, 3U);

  EXPECT_EQ(log.gpu[1].kind, activity_kind::memset);
  EXPECT_EQ(log.names[log.gpu[1].name], "[memset]");
  EXPECT_EQ(log.gpu[1].stream, 4U);
  EXPECT_EQ(log.gpu[2].kind, activity_kind::memcpy);
  EXPECT_EQ(log.names[log.gpu[2].name], "[memcpy DtoD]");
  EXPECT_EQ(log.gpu[2].end, 3300U);
}

TEST(record_decoder, decodes_tags_by_kind_and_ignores_foreign_tags) {
  testing::activity_buffer buffer;
  buffer.iteration_tag(7, 100);
  buffer.flush_tag(7, 101);
  buffer.tag(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, 3, 102);
  buffer.tag(CUPTI_EXTERNAL_CORRELATION_KIND_OPENACC, 9, 103); // not ours
  const activity_log log = buffer.decode();

  ASSERT_EQ(log.tags.size(), 3U);
  EXPECT_EQ(log.tags[0].kind, tag_kind::iteration);
  EXPECT_EQ(log.tags[0].id, 7U);
  EXPECT_EQ(log.tags[0].correlation_id, 100U);
  EXPECT_EQ(log.tags[1].kind, tag_kind::flush);
  EXPECT_EQ(log.tags[2].kind, tag_kind::internal);
}

TEST(record_decoder, keeps_the_thread_and_times_of_runtime_and_driver_calls) {
  testing::activity_buffer buffer;
  buffer.api(CUPTI_ACTIVITY_KIND_RUNTIME, 5, 1234, 0, 1'000, 4'500);
  buffer.api(CUPTI_ACTIVITY_KIND_DRIVER, 6, 5678);
  const activity_log log = buffer.decode();
  ASSERT_EQ(log.api_calls.size(), 2U);
  EXPECT_EQ(log.api_calls[0].correlation_id, 5U);
  EXPECT_EQ(log.api_calls[0].thread_id, 1234U);
  EXPECT_EQ(log.api_calls[0].start, 1'000U);
  EXPECT_EQ(log.api_calls[0].end, 4'500U);
  EXPECT_EQ(log.api_calls[1].thread_id, 5678U);
  EXPECT_EQ(log.api_calls[1].end, 0U);
}

TEST(record_decoder, interns_equal_names_from_different_pointers_once) {
  const std::string first = "void fill_kernel<float>(float*, int)";
  const std::string second(first.begin(), first.end()); // same text, another address
  testing::activity_buffer buffer;
  buffer.kernel(first.c_str(), 1, 2, 1);
  buffer.kernel(second.c_str(), 3, 4, 2);
  buffer.kernel(first.c_str(), 5, 6, 3);
  buffer.kernel(nullptr, 7, 8, 4);
  const activity_log log = buffer.decode();
  ASSERT_EQ(log.names.size(), 2U);
  EXPECT_EQ(log.gpu[0].name, log.gpu[1].name);
  EXPECT_EQ(log.gpu[0].name, log.gpu[2].name);
  EXPECT_EQ(log.names[log.gpu[3].name], "[unnamed kernel]");
}

TEST(record_decoder, demangles_cpp_kernel_names_and_keeps_c_names) {
  testing::activity_buffer buffer;
  buffer.kernel("_ZN8kerntime5suite12scale_kernelEPfmf", 1, 2, 1);
  buffer.kernel("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", 3, 4, 2);
  buffer.kernel("_Zbroken", 5, 6, 3);
  const activity_log log = buffer.decode();
  EXPECT_EQ(log.names[log.gpu[0].name],
            "kerntime::suite::scale_kernel(float*, unsigned long, float)");
  EXPECT_EQ(log.names[log.gpu[1].name], "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
  EXPECT_EQ(log.names[log.gpu[2].name], "_Zbroken");
}

TEST(record_decoder, ignores_kinds_it_does_not_use) {
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_MARKER;
  activity_log log;
  record_decoder decoder(log);
  decoder.decode(reinterpret_cast<const CUpti_Activity&>(k));
  EXPECT_TRUE(log.gpu.empty());
  EXPECT_TRUE(log.tags.empty());
}

} // namespace
} // namespace kerntime::detail
