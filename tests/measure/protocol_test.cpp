#include <gtest/gtest.h>

#include <cmath>

#include <cuda_runtime_api.h>

#include <string>
#include <utility>

#include "kerntime/measure.hpp"
#include "kerntime/protocol.hpp"

namespace kerntime {
namespace {

TEST(protocol, defaults_are_valid_and_bad_counts_name_the_field) {
  EXPECT_FALSE(validate(protocol{}).has_value());
  const std::pair<void (*)(protocol&), const char*> cases[] = {
      {[](protocol& p) { p.trials = 0; }, "trials"},
      {[](protocol& p) { p.repeats = -3; }, "repeats must be at least 1 (got -3)"},
      {[](protocol& p) { p.input_sets = 0; }, "input_sets"},
      {[](protocol& p) { p.warmup = -1; }, "warmup"},
      {[](protocol& p) { p.throttle_threshold = 1.5; }, "throttle_threshold"},
  };
  for (const auto& [spoil, named] : cases) {
    protocol p;
    spoil(p);
    ASSERT_TRUE(validate(p).has_value()) << named;
    EXPECT_NE(validate(p)->find(named), std::string::npos) << *validate(p);
  }
}

std::string parse_error(const protocol_request& request, const setting_names& names = {}) {
  try {
    (void)parse_protocol(request, names);
  } catch (const invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(protocol, a_request_as_typed_becomes_the_protocol_it_names) {
  protocol_request request;
  request.repeats = 7;
  request.flush_bytes = 4096;
  request.backend = "events";
  request.metric = "busy";
  const protocol p = parse_protocol(request);
  EXPECT_EQ(p.repeats, 7);
  EXPECT_EQ(p.flush_bytes, 4096U);
  EXPECT_EQ(p.backend, backend_request::events);
  EXPECT_EQ(p.metric, headline_metric::busy);
  EXPECT_EQ(p.warmup, protocol{}.warmup);
  EXPECT_FALSE(validate(p).has_value());
}

TEST(protocol, a_bad_request_names_the_setting_as_the_caller_spells_it) {
  protocol_request request;
  request.backend = "nsight";
  EXPECT_EQ(parse_error(request),
            "backend=nsight is not a timer; pass backend=auto, backend=cupti or backend=events");
  setting_names flags;
  flags.backend = "--backend";
  flags.assign = " ";
  EXPECT_EQ(parse_error(request, flags), "--backend nsight is not a timer; pass --backend auto, "
                                         "--backend cupti or --backend events");
  request = {};
  request.flush_l2 = false;
  request.flush_bytes = 1024;
  EXPECT_EQ(parse_error(request), "flush_bytes and flush_l2=false contradict each other; drop one");
  request.flush_l2 = true;
  request.flush_bytes = 0;
  EXPECT_NE(parse_error(request).find("flush_bytes must be at least 1 (got 0)"), std::string::npos);
  request = {};
  request.discard_throttled = true;
  request.telemetry = false;
  EXPECT_NE(parse_error(request).find("contradict"), std::string::npos);
  request = {};
  request.repeats = 5'000'000'000;
  EXPECT_NE(parse_error(request).find("repeats must be at most 100000 (got 5000000000)"),
            std::string::npos);
}

TEST(protocol, the_stopping_rule_is_checked_and_its_bounds_need_it) {
  protocol_request request;
  request.stop_at_ci = 0.5;
  const protocol p = parse_protocol(request);
  EXPECT_EQ(p.stop_at_ci, 0.5);
  EXPECT_EQ(p.max_trials, protocol{}.max_trials);
  request.trials = 150; // the default bound never undercuts the trials asked for
  EXPECT_EQ(parse_protocol(request).max_trials, 150);

  const setting_names flags{.trials = "--trials",
                            .stop_at_ci = "--stop-at-ci",
                            .max_trials = "--max-trials",
                            .max_time = "--max-time",
                            .assign = " "};
  protocol_request bounds_alone;
  bounds_alone.max_trials = 50;
  EXPECT_EQ(parse_error(bounds_alone, flags),
            "--max-trials bounds the stopping rule and needs --stop-at-ci; pass --stop-at-ci 0.5 "
            "(for example) or drop --max-trials");
  for (const double bad : {0.0, -1.0, 100.0, std::nan("")}) {
    protocol_request r;
    r.stop_at_ci = bad;
    EXPECT_NE(parse_error(r, flags).find("--stop-at-ci is a percentage in (0, 100)"),
              std::string::npos)
        << bad;
  }
  protocol_request below;
  below.stop_at_ci = 1;
  below.trials = 10;
  below.max_trials = 8;
  EXPECT_EQ(parse_error(below, flags), "--max-trials (8) is below --trials (10), the trials that "
                                       "always run; raise --max-trials or lower --trials");
  protocol_request no_time;
  no_time.stop_at_ci = 1;
  no_time.max_time_s = 0;
  EXPECT_NE(parse_error(no_time, flags).find("--max-time must be a positive number of seconds"),
            std::string::npos);
  protocol direct;
  direct.stop_at_ci = 0.5;
  direct.trials = 200; // max_trials stays 100
  EXPECT_NE(validate(direct)->find("max_trials (100) is below trials (200)"), std::string::npos);
}

TEST(protocol, counters_need_cupti_and_metrics_need_counters) {
  protocol_request asked;
  asked.metrics = {"dram__bytes_read.sum"};
  const protocol p = parse_protocol(asked);
  EXPECT_TRUE(p.counters) << "naming metrics asks for counters";
  EXPECT_EQ(p.metrics, asked.metrics);

  protocol_request with_events;
  with_events.counters = true;
  with_events.backend = "events";
  try {
    (void)parse_protocol(with_events);
    FAIL() << "counters with CUDA events were accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("counters needs CUPTI"), std::string::npos) << e.what();
  }
  protocol_request comma;
  comma.metrics = {"dram__bytes_read.sum,dram__bytes_write.sum"};
  EXPECT_THROW((void)parse_protocol(comma), invalid_argument);
  protocol_request empty_name;
  empty_name.metrics = {""};
  EXPECT_THROW((void)parse_protocol(empty_name), invalid_argument);

  protocol direct;
  direct.metrics = {"dram__bytes_read.sum"}; // counters left off
  ASSERT_TRUE(validate(direct).has_value());
  EXPECT_NE(validate(direct)->find("metrics names the hardware counters"), std::string::npos);
  direct.counters = true;
  EXPECT_FALSE(validate(direct).has_value());
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
