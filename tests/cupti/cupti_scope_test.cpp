// The scope in which CUPTI stays initialised between measurements (cupti/cupti_scope.hpp),
// through the real CUPTI session and the public kerntime::session, with CUPTI's table faked.

#include "cupti/cupti_scope.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cupti/cupti_session.hpp"
#include "fake_cupti.hpp"
#include "kerntime/session.hpp"

namespace kerntime::detail {
namespace {

class cupti_scope_test : public ::testing::Test {
protected:
  void SetUp() override {
    state = fake_cupti_state{};
    ASSERT_EQ(cupti_scope_depth(), 0) << "a scope leaked from an earlier test";
  }
  void TearDown() override { EXPECT_EQ(cupti_scope_depth(), 0); }

  // One measurement's attach and detach, as the CUPTI timer makes them.
  bool measure_once(const cupti_sharing& sharing = {}) {
    attach_outcome outcome;
    cupti_session session(library, outcome, sharing);
    EXPECT_TRUE(outcome.attached) << outcome.detail;
    (void)session.detach();
    return session.kept_initialised();
  }
  cupti_library library = fake_library();
};

TEST_F(cupti_scope_test, outside_a_scope_every_measurement_finalizes) {
  EXPECT_FALSE(measure_once());
  EXPECT_FALSE(measure_once());
  EXPECT_EQ(calls_to("subscribe"), 2);
  EXPECT_EQ(calls_to("unsubscribe"), 2);
  EXPECT_EQ(calls_to("finalize"), 2);
}

TEST_F(cupti_scope_test, inside_a_scope_measurements_unsubscribe_and_the_end_finalizes_once) {
  {
    const kerntime::session scope;
    EXPECT_EQ(kerntime::session::depth(), 1);
    EXPECT_TRUE(measure_once());
    EXPECT_TRUE(measure_once());
    EXPECT_EQ(calls_to("unsubscribe"), 2);
    EXPECT_EQ(calls_to("finalize"), 0) << "CUPTI was finalized inside the scope";
    // Each detach is still one step: disable, flush, unsubscribe, no launch in between.
    const auto last_flush = std::find(state.calls.rbegin(), state.calls.rend(), "flush");
    const auto last_unsubscribe =
        std::find(state.calls.rbegin(), state.calls.rend(), "unsubscribe");
    EXPECT_LT(last_unsubscribe - state.calls.rbegin(), last_flush - state.calls.rbegin());
  }
  EXPECT_EQ(last_scope_end(), scope_end::finalized);
  // The end checks that nobody holds a subscription (its own probe), then finalizes.
  ASSERT_GE(state.calls.size(), 3U);
  const std::vector<std::string> end(state.calls.end() - 3, state.calls.end());
  EXPECT_EQ(end, (std::vector<std::string>{"subscribe", "unsubscribe", "finalize"}));
  EXPECT_EQ(calls_to("finalize"), 1);
}

TEST_F(cupti_scope_test, nested_scopes_finalize_only_at_the_outermost_end) {
  {
    const kerntime::session outer;
    {
      const kerntime::session inner;
      EXPECT_EQ(kerntime::session::depth(), 2);
      EXPECT_TRUE(measure_once());
    }
    EXPECT_EQ(kerntime::session::depth(), 1);
    EXPECT_EQ(calls_to("finalize"), 0) << "the inner scope's end finalized";
    EXPECT_TRUE(measure_once());
  }
  EXPECT_EQ(calls_to("finalize"), 1);
  EXPECT_EQ(last_scope_end(), scope_end::finalized);
}

TEST_F(cupti_scope_test, a_scope_without_measurements_touches_nothing) {
  { const kerntime::session scope; }
  EXPECT_TRUE(state.calls.empty());
  EXPECT_EQ(last_scope_end(), scope_end::nothing_kept);
}

TEST_F(cupti_scope_test, an_exception_inside_ends_the_measurement_and_the_scope_in_order) {
  try {
    const kerntime::session scope;
    attach_outcome outcome;
    const cupti_session session(library, outcome);
    ASSERT_TRUE(outcome.attached);
    throw std::runtime_error("the work failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(kerntime::session::depth(), 0);
  // The session's destructor detached (no finalize inside the scope), then the scope's end did.
  EXPECT_EQ(calls_to("unsubscribe"), 2); // the measurement's, then the end's probe
  EXPECT_EQ(calls_to("finalize"), 1);
  EXPECT_EQ(state.calls.back(), "finalize");
}

TEST_F(cupti_scope_test, a_client_that_subscribed_inside_the_scope_keeps_cupti_at_its_end) {
  {
    const kerntime::session scope;
    EXPECT_TRUE(measure_once());
    // torch.profiler's Kineto subscribes between measurements and keeps its subscription.
    state.subscribe_result = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  }
  EXPECT_EQ(last_scope_end(), scope_end::left_to_other_subscriber);
  EXPECT_EQ(calls_to("finalize"), 0) << "finalizing would tear down the profiler's CUPTI";
}

TEST_F(cupti_scope_test, a_profiler_held_cupti_inside_a_scope_is_shared_and_left_as_found) {
  const cupti_sharing idle_profiler{cupti_holder::idle_torch_profiler, {}};
  {
    const kerntime::session scope;
    EXPECT_TRUE(measure_once()); // before the profiler: kerntime's own subscription, kept
    state.subscribe_result = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    EXPECT_FALSE(measure_once(idle_profiler)); // shared: nothing of kerntime's to keep
    EXPECT_EQ(calls_to("unsubscribe"), 1);
  }
  EXPECT_EQ(calls_to("finalize"), 0);
  EXPECT_EQ(last_scope_end(), scope_end::left_to_other_subscriber);
}

TEST_F(cupti_scope_test, the_hooks_run_once_at_the_outermost_end_before_finalizing) {
  std::vector<std::string> order;
  {
    const kerntime::session outer;
    ASSERT_TRUE(at_scope_end([&] { order.emplace_back("hook"); }));
    EXPECT_TRUE(measure_once());
    { const kerntime::session inner; }
    EXPECT_TRUE(order.empty());
  }
  ASSERT_EQ(order.size(), 1U);
  { const kerntime::session again; }
  EXPECT_EQ(order.size(), 1U) << "a hook ran again in a later scope";
}

TEST_F(cupti_scope_test, a_scope_ending_while_a_measurement_holds_cupti_leaves_it_the_finalize) {
  auto scope = std::make_unique<kerntime::session>();
  EXPECT_TRUE(measure_once()); // CUPTI kept for the scope
  attach_outcome outcome;
  auto in_flight = std::make_unique<cupti_session>(library, outcome); // another thread's, say
  ASSERT_TRUE(outcome.attached) << outcome.detail;
  const std::size_t before = state.calls.size();
  scope.reset(); // the outermost end, while the measurement is attached
  EXPECT_EQ(last_scope_end(), scope_end::left_to_measurement);
  EXPECT_EQ(state.calls.size(), before) << "the end probed or finalized under a measurement";
  (void)in_flight->detach(); // outside every scope now: the measurement finalizes
  EXPECT_FALSE(in_flight->kept_initialised());
  EXPECT_EQ(calls_to("finalize"), 1);
}

TEST_F(cupti_scope_test,
       a_scope_ending_just_after_a_measurement_kept_cupti_finalizes_when_it_lets_go) {
  // The measurement kept CUPTI for the scope (release_cupti inside it) and still holds its place
  // when the scope ends; once it lets go, what the end could not do is done.
  enter_cupti_scope();
  EXPECT_TRUE(release_cupti(library));
  const bool held = while_no_measurement([] { leave_cupti_scope(); });
  ASSERT_TRUE(held);
  EXPECT_EQ(last_scope_end(), scope_end::left_to_measurement);
  EXPECT_EQ(calls_to("finalize"), 0);
  measurement_released();
  EXPECT_EQ(calls_to("finalize"), 1);
  EXPECT_EQ(last_scope_end(), scope_end::finalized);
  measurement_released(); // nothing left to do
  EXPECT_EQ(calls_to("finalize"), 1);
}

TEST_F(cupti_scope_test, a_probe_that_fails_for_another_reason_leaves_cupti_as_it_is) {
  {
    const kerntime::session scope;
    EXPECT_TRUE(measure_once());
    state.subscribe_result = CUPTI_ERROR_NOT_INITIALIZED;
  }
  EXPECT_EQ(last_scope_end(), scope_end::probe_failed);
  EXPECT_STREQ(name_of(scope_end::probe_failed), "probe_failed");
  EXPECT_EQ(calls_to("finalize"), 0);
}

TEST_F(cupti_scope_test, an_end_told_of_an_active_profiler_leaves_cupti_to_it) {
  enter_cupti_scope();
  EXPECT_TRUE(measure_once());
  const std::size_t before = state.calls.size();
  leave_cupti_scope(/*profiler_active=*/true);
  EXPECT_EQ(last_scope_end(), scope_end::left_to_profiler);
  EXPECT_EQ(state.calls.size(), before) << "the end probed or finalized under the profiler";
}

TEST_F(cupti_scope_test, a_hook_offered_outside_a_scope_is_refused_and_inside_runs_at_the_end) {
  int runs = 0;
  EXPECT_FALSE(at_scope_end([&] { ++runs; }));
  {
    const kerntime::session scope;
    EXPECT_TRUE(at_scope_end([&] { ++runs; }));
  }
  EXPECT_EQ(runs, 1);
}

TEST_F(cupti_scope_test, a_hook_that_throws_does_not_stop_the_end) {
  {
    const kerntime::session scope;
    ASSERT_TRUE(at_scope_end([] { throw std::runtime_error("cudaFree failed"); }));
    EXPECT_TRUE(measure_once());
  }
  EXPECT_EQ(calls_to("finalize"), 1);
}

TEST_F(cupti_scope_test, leaving_more_often_than_entering_is_harmless) {
  leave_cupti_scope();
  EXPECT_EQ(cupti_scope_depth(), 0);
  EXPECT_FALSE(measure_once());
  EXPECT_EQ(calls_to("finalize"), 1);
}

} // namespace
} // namespace kerntime::detail
