#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <string>

#include "kerntime/measure.hpp"

namespace kerntime {
namespace {

TEST(protocol, defaults_are_valid_and_bad_counts_name_the_field) {
  EXPECT_FALSE(validate(protocol{}).has_value());
  protocol p;
  p.trials = 0;
  ASSERT_TRUE(validate(p).has_value());
  EXPECT_NE(validate(p)->find("trials"), std::string::npos);
  p = protocol{};
  p.repeats = -3;
  EXPECT_NE(validate(p)->find("repeats must be at least 1 (got -3)"), std::string::npos);
  p = protocol{};
  p.input_sets = 0;
  EXPECT_NE(validate(p)->find("input_sets"), std::string::npos);
  p = protocol{};
  p.warmup = -1;
  EXPECT_NE(validate(p)->find("warmup"), std::string::npos);
  p = protocol{};
  p.throttle_threshold = 1.5;
  EXPECT_NE(validate(p)->find("throttle_threshold"), std::string::npos);
}

TEST(protocol, backend_and_metric_names_round_trip) {
  for (const auto b :
       {backend_request::automatic, backend_request::cupti, backend_request::events}) {
    EXPECT_EQ(parse_backend_request(to_string(b)), b);
  }
  EXPECT_EQ(parse_headline_metric("busy"), headline_metric::busy);
  EXPECT_EQ(parse_headline_metric(to_string(headline_metric::span)), headline_metric::span);
  EXPECT_FALSE(parse_backend_request("nvtx").has_value());
  EXPECT_FALSE(parse_headline_metric("mean").has_value());
}

TEST(measure, an_invalid_protocol_is_rejected_before_touching_the_gpu) {
  protocol p;
  p.trials = 0;
  EXPECT_THROW((void)measure([](cudaStream_t, int) {}, p), invalid_argument);
  EXPECT_THROW((void)measure(work_function{}, protocol{}), invalid_argument);
}

TEST(measure, without_a_gpu_it_says_so) {
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) {
    GTEST_SKIP() << "this machine has a GPU; the no-GPU path is tested on machines without one";
  }
  try {
    (void)measure([](cudaStream_t, int) {});
    FAIL() << "measure() succeeded without a GPU";
  } catch (const device_unavailable& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA device"), std::string::npos);
  }
}

} // namespace
} // namespace kerntime
