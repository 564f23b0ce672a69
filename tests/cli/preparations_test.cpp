// kerntime run's trials split over fresh preparations: the count the flags give, the split of
// the trials, the pooled result with its spread, a failure or skip in a later preparation, and
// the protocols that take one preparation. Fed with real measurement results, no GPU.

#include "cli/preparations.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kerntime/errors.hpp"

namespace kerntime::detail {
namespace {

// One preparation's run: `trials` trials of four readings of `ns`.
benchmark_run prepared(const protocol& p, double ns) {
  benchmark_run run;
  run.benchmark = "reduce_sum";
  run.state_name = "reduce_sum/elements=65536";
  run.status = run_status::ok;
  measurement_result r;
  r.protocol_used = p;
  r.backend = timing_backend::cupti;
  r.latency_ns = ns;
  for (int t = 0; t < p.trials; ++t) {
    trial_result trial;
    trial.iterations.assign(4, iteration_sample{.span_ns = ns, .busy_ns = ns});
    r.trials.push_back(trial);
  }
  r.wall_seconds = 0.01;
  run.result = r;
  return run;
}

TEST(preparations, by_default_every_trial_is_its_own_and_a_stopping_rule_takes_one) {
  run_flags flags;
  protocol p;
  p.trials = 5;
  EXPECT_EQ(preparations_of(flags, p), 5);
  p.stop_at_ci = 1.0;
  EXPECT_EQ(preparations_of(flags, p), 1);
  flags.preparations = 1;
  EXPECT_EQ(preparations_of(flags, p), 1);
}

TEST(preparations, a_count_below_one_above_the_trials_or_with_a_stopping_rule_is_refused) {
  run_flags flags;
  protocol p;
  p.trials = 4;
  flags.preparations = 0;
  EXPECT_THROW((void)preparations_of(flags, p), invalid_argument);
  flags.preparations = 5;
  try {
    (void)preparations_of(flags, p);
    FAIL() << "more preparations than trials was accepted";
  } catch (const invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--trials 5"), std::string::npos) << e.what();
  }
  flags.preparations = 2;
  EXPECT_EQ(preparations_of(flags, p), 2);
  p.stop_at_ci = 0.5;
  EXPECT_THROW((void)preparations_of(flags, p), invalid_argument);
}

TEST(preparations, the_trials_are_split_first_ones_longer_and_pooled_with_their_spread) {
  protocol p;
  p.trials = 7;
  std::vector<int> trials_asked;
  const std::vector<double> times{1000, 1040, 980};
  const auto run = run_in_preparations(p, 3, [&](const protocol& each) {
    trials_asked.push_back(each.trials);
    return prepared(each, times.at(trials_asked.size() - 1));
  });
  EXPECT_EQ(trials_asked, (std::vector<int>{3, 2, 2}));
  ASSERT_EQ(run.status, run_status::ok);
  ASSERT_TRUE(run.result.has_value());
  EXPECT_EQ(run.result->trials.size(), 7U);
  EXPECT_EQ(run.result->preparations, 3);
  EXPECT_EQ(run.state_name, "reduce_sum/elements=65536");
  const double mean = (std::log(1000.0) + std::log(1040.0) + std::log(980.0)) / 3;
  double squares = 0;
  for (const double t : times) {
    squares += (std::log(t) - mean) * (std::log(t) - mean);
  }
  ASSERT_TRUE(run.result->preparation_spread.has_value());
  EXPECT_NEAR(*run.result->preparation_spread, std::sqrt(squares / 2), 1e-12);
  EXPECT_NEAR(run.result->wall_seconds, 0.03, 1e-12);
}

TEST(preparations, a_later_preparation_that_fails_fails_the_state_with_its_own_message) {
  protocol p;
  p.trials = 5;
  int calls = 0;
  const auto run = run_in_preparations(p, 5, [&](const protocol& each) {
    if (++calls == 3) {
      benchmark_run failed;
      failed.status = run_status::failed;
      failed.message = "out of memory in the third preparation";
      return failed;
    }
    return prepared(each, 1000);
  });
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(run.status, run_status::failed);
  EXPECT_EQ(run.message, "out of memory in the third preparation (in preparation 3 of 5; the "
                         "ones before it measured)");
  EXPECT_FALSE(run.result.has_value());
}

TEST(preparations, one_preparation_a_stopping_rule_or_a_counter_pass_calls_once_unchanged) {
  protocol p;
  p.trials = 5;
  for (auto change :
       {+[](protocol&) {}, +[](protocol& q) { q.stop_at_ci = 1.0; },
        +[](protocol& q) { q.counters = true; }, +[](protocol& q) { q.counters_only = true; }}) {
    protocol asked = p;
    change(asked);
    const int preparations = asked.stop_at_ci || asked.counters || asked.counters_only ? 5 : 1;
    int calls = 0;
    const auto run = run_in_preparations(asked, preparations, [&](const protocol& each) {
      ++calls;
      EXPECT_EQ(each.trials, 5);
      return prepared(each, 1000);
    });
    EXPECT_EQ(calls, 1);
    ASSERT_TRUE(run.result.has_value());
    EXPECT_EQ(run.result->preparations, 1);
    EXPECT_FALSE(run.result->preparation_spread.has_value());
  }
}

} // namespace
} // namespace kerntime::detail
