// The real CUPTI session driven by a CUPTI stand-in: the same entry-point table, whose buffer
// flush hands the session's own callbacks a buffer of real CUPTI records.

#include "cupti/cupti_session.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include <cupti_runtime_cbid.h>

#include "activity_buffer.hpp"
#include "fake_cupti.hpp"
#include "kerntime/errors.hpp"

namespace kerntime::detail {
namespace {

class cupti_session_test : public ::testing::Test {
protected:
  void SetUp() override { state = fake_cupti_state{}; }

  // Attaches a session and lets it go again: what the attach reported.
  [[nodiscard]] attach_outcome attach_once() const {
    attach_outcome outcome;
    const cupti_session session(library, outcome);
    return outcome;
  }
  // The stand-in's flush hands out one kernel, "user_kernel", launched as iteration 1.
  void flush_one_user_kernel() {
    flushed.iteration_kernel(1, "user_kernel", 100, 200, 10);
    state.records = &flushed;
  }
  cupti_library library = fake_library();
  testing::activity_buffer flushed;
};

std::vector<std::string> without(const std::vector<std::string>& calls, const std::string& name) {
  std::vector<std::string> out;
  std::copy_if(calls.begin(), calls.end(), std::back_inserter(out),
               [&](const std::string& c) { return c != name; });
  return out;
}

TEST_F(cupti_session_test, attaches_enables_six_kinds_and_never_the_serialising_kernel_kind) {
  attach_outcome outcome;
  cupti_session session(library, outcome);
  EXPECT_TRUE(outcome.attached);
  EXPECT_TRUE(session.attached());
  ASSERT_EQ(state.enabled.size(), 6U);
  for (const auto kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMSET,
                          CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_RUNTIME,
                          CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION}) {
    EXPECT_NE(std::find(state.enabled.begin(), state.enabled.end(), kind), state.enabled.end());
  }
  EXPECT_EQ(std::find(state.enabled.begin(), state.enabled.end(), CUPTI_ACTIVITY_KIND_KERNEL),
            state.enabled.end());
}

TEST_F(cupti_session_test, detaches_in_one_step_and_decodes_the_flushed_buffer) {
  flush_one_user_kernel();

  attach_outcome outcome;
  cupti_session session(library, outcome);
  state.calls.clear();
  session.push(tag_kind::iteration, 1);
  session.pop(tag_kind::iteration);
  const activity_log log = session.detach();

  const std::string custom0 =
      std::to_string(static_cast<int>(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0));
  const std::vector<std::string> expected = {"push " + custom0 + " 1",
                                             "pop " + custom0,
                                             "disable",
                                             "disable",
                                             "disable",
                                             "disable",
                                             "disable",
                                             "disable",
                                             "flush",
                                             "dropped",
                                             "unsubscribe",
                                             "finalize"};
  // The second "dropped" query (for the current context) needs a live CUDA context.
  EXPECT_EQ(without(state.calls, "dropped"), without(expected, "dropped"));
  ASSERT_EQ(log.gpu.size(), 1U);
  EXPECT_EQ(log.names[log.gpu[0].name], "user_kernel");
  ASSERT_EQ(log.tags.size(), 1U);
  EXPECT_EQ(log.dropped_records, 0U);
  EXPECT_FALSE(session.attached());
}

TEST_F(cupti_session_test, reports_dropped_records_in_the_log) {
  state.dropped = 3;
  attach_outcome outcome;
  cupti_session session(library, outcome);
  EXPECT_EQ(session.detach().dropped_records, 3U);
}

// A failed attach says which call failed with what, and cleans up only what it set up: another
// subscriber's CUPTI is not ours to finalize; our own subscription is undone.
TEST_F(cupti_session_test, a_failed_attach_names_the_call_and_cleans_up_only_its_own_work) {
  struct failure {
    CUptiResult fake_cupti_state::*inject;
    CUptiResult result;
    const char* call;
    long unsubscribes;
    long finalizes;
  };
  const failure failures[] = {
      {&fake_cupti_state::subscribe_result, CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
       "cuptiSubscribe", 0, 0},
      {&fake_cupti_state::enable_result, CUPTI_ERROR_NOT_SUPPORTED, "cuptiActivityEnable", 1, 1},
  };
  for (const auto& f : failures) {
    state = fake_cupti_state{};
    state.*f.inject = f.result;
    const attach_outcome outcome = attach_once();
    EXPECT_FALSE(outcome.attached) << f.call;
    EXPECT_EQ(outcome.result, f.result);
    EXPECT_NE(outcome.detail.find(f.call), std::string::npos) << outcome.detail;
    EXPECT_EQ(calls_to("unsubscribe"), f.unsubscribes) << f.call;
    EXPECT_EQ(calls_to("finalize"), f.finalizes) << f.call;
  }
  state = fake_cupti_state{};
  state.subscribe_result = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  EXPECT_NE(attach_once().detail.find("MULTIPLE_SUBSCRIBERS"), std::string::npos);
}

TEST_F(cupti_session_test, a_second_session_in_the_process_is_refused) {
  attach_outcome first_outcome;
  cupti_session first(library, first_outcome);
  attach_outcome second_outcome;
  cupti_session second(library, second_outcome);
  EXPECT_TRUE(first_outcome.attached);
  EXPECT_FALSE(second_outcome.attached);
  EXPECT_EQ(second_outcome.result, CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
}

TEST_F(cupti_session_test, a_failed_tag_push_invalidates_the_measurement) {
  state.push_result = CUPTI_ERROR_INVALID_PARAMETER;
  attach_outcome outcome;
  cupti_session session(library, outcome);
  EXPECT_THROW(session.push(tag_kind::iteration, 1), measurement_invalid);
}

// --- Watching the calls through callbacks in the trials (cupti/watched_calls.hpp) ---

class watching_test : public cupti_session_test {
protected:
  void SetUp() override {
    cupti_session_test::SetUp();
    library.enable_callback = fake_enable_callback;
    library.get_timestamp = fake_get_timestamp;
  }
  // CUPTI calling back around one call made on this thread, as it does inside the call.
  static void make_call(CUpti_CallbackId cbid, std::uint32_t correlation,
                        CUpti_CallbackDomain domain = CUPTI_CB_DOMAIN_RUNTIME_API) {
    ASSERT_NE(state.api_callback, nullptr);
    CUpti_CallbackData data{};
    data.correlationId = correlation;
    data.callbackSite = CUPTI_API_ENTER;
    state.api_callback(nullptr, domain, cbid, &data);
    data.callbackSite = CUPTI_API_EXIT;
    state.api_callback(nullptr, domain, cbid, &data);
  }
  // A kernel launch call made inside one tag of `kind`.
  static void launch_inside(cupti_session& session, tag_kind kind, std::uint64_t id,
                            std::uint32_t correlation) {
    session.push(kind, id);
    make_call(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, correlation);
    session.pop(kind);
  }
  const std::vector<watched_call> calls = {
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000},
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020}};
  // The fake's record of an iteration tag pushed to (or popped from) CUPTI.
  static std::string iteration_push(std::uint64_t id) {
    return "push " + custom0() + " " + std::to_string(id);
  }
  static std::string iteration_pop() { return "pop " + custom0(); }
  static std::string custom0() {
    return std::to_string(static_cast<int>(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0));
  }
};

TEST_F(watching_test, the_trials_tag_through_callbacks_and_stop_recording_every_api_call) {
  testing::activity_buffer records;
  records.kernel("user_kernel", 100, 200, 21);
  state.records = &records;
  attach_outcome outcome;
  cupti_session session(library, outcome);
  ASSERT_TRUE(outcome.attached);
  ASSERT_TRUE(session.watch_calls(calls));
  EXPECT_EQ(state.callbacks_enabled.size(), 2U);
  EXPECT_EQ(state.disabled, (std::vector<CUpti_ActivityKind>{
                                CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
                                CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION}));
  state.calls.clear();
  make_call(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 20); // before any tag: not ours
  session.push(tag_kind::iteration, 4);
  make_call(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 21);
  make_call(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 22);
  session.pop(tag_kind::iteration);
  // The tag no longer goes to CUPTI as an external-correlation id.
  EXPECT_EQ(calls_to(iteration_push(4)) + calls_to(iteration_pop()), 0);

  const activity_log log = session.detach();
  ASSERT_EQ(log.tags.size(), 2U);
  EXPECT_EQ(log.tags[0].kind, tag_kind::iteration);
  EXPECT_EQ(log.tags[0].id, 4U);
  EXPECT_EQ(log.tags[0].correlation_id, 21U);
  ASSERT_EQ(log.api_calls.size(), 2U);
  EXPECT_EQ(log.api_calls[0].correlation_id, 21U);
  // The host-gap rule reads the end, on the records' clock: kerntime's realtime_ns.
  EXPECT_GE(log.api_calls[0].end, log.api_calls[0].start);
  EXPECT_GT(log.api_calls[0].start, std::uint64_t{1'000'000'000} * 1'000'000'000);
  EXPECT_EQ(log.api_calls[0].api_kind, CUPTI_ACTIVITY_KIND_RUNTIME);
  EXPECT_EQ(log.api_calls[1].wait.kind, host_wait_kind::synchronize);
  EXPECT_EQ(log.api_calls[1].wait.name, "cudaStreamSynchronize");
  ASSERT_EQ(log.gpu.size(), 1U);
  // Detaching turns the callbacks off before it lets CUPTI go.
  const auto off = std::find(state.calls.begin(), state.calls.end(), "callback off");
  const auto unsubscribe = std::find(state.calls.begin(), state.calls.end(), "unsubscribe");
  EXPECT_EQ(calls_to("callback off"), 2);
  EXPECT_LT(off, unsubscribe);
}

TEST_F(watching_test, without_kerntime_s_clock_a_watched_call_reads_cupti_s) {
  state.timestamp_result = CUPTI_ERROR_NOT_SUPPORTED; // records then carry CUPTI's own clock
  attach_outcome outcome;
  cupti_session session(library, outcome);
  ASSERT_TRUE(outcome.attached);
  ASSERT_TRUE(session.watch_calls(calls));
  launch_inside(session, tag_kind::iteration, 1, 50);
  const activity_log log = session.detach();
  ASSERT_EQ(log.api_calls.size(), 1U);
  EXPECT_EQ(log.api_calls[0].start, 1010U); // the fake cuptiGetTimestamp's ticks
  EXPECT_EQ(log.api_calls[0].end, 1020U);
}

TEST_F(watching_test, a_look_at_the_records_so_far_holds_the_watched_calls) {
  attach_outcome outcome;
  cupti_session session(library, outcome);
  ASSERT_TRUE(session.watch_calls(calls));
  launch_inside(session, tag_kind::flush, 2, 30);
  const activity_log so_far = session.records_so_far();
  ASSERT_EQ(so_far.tags.size(), 1U);
  EXPECT_EQ(so_far.tags[0].kind, tag_kind::flush);
  EXPECT_EQ(session.detach().tags.size(), 1U); // the look took nothing away
}

TEST_F(watching_test, nested_tags_tag_a_call_with_the_innermost) {
  attach_outcome outcome;
  cupti_session session(library, outcome);
  ASSERT_TRUE(session.watch_calls(calls));
  session.push(tag_kind::iteration, 1);
  session.push(tag_kind::internal, 9);
  make_call(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 40);
  session.pop(tag_kind::internal);
  make_call(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 41);
  session.pop(tag_kind::iteration);
  const activity_log log = session.detach();
  ASSERT_EQ(log.tags.size(), 2U);
  EXPECT_EQ(log.tags[0].kind, tag_kind::internal);
  EXPECT_EQ(log.tags[1].kind, tag_kind::iteration);
}

TEST_F(watching_test, without_the_callback_entry_points_every_call_is_recorded_as_before) {
  library.enable_callback = nullptr;
  attach_outcome outcome;
  cupti_session session(library, outcome);
  EXPECT_FALSE(session.watch_calls(calls));
  EXPECT_TRUE(state.disabled.empty());
  session.push(tag_kind::iteration, 1); // still an external-correlation id
  session.pop(tag_kind::iteration);
  EXPECT_EQ(calls_to(iteration_push(1)), 1);
  EXPECT_EQ(calls_to(iteration_pop()), 1);
}

TEST_F(watching_test, a_callback_that_cannot_be_enabled_leaves_every_call_recorded) {
  state.enable_callback_fails_at = 1;
  attach_outcome outcome;
  cupti_session session(library, outcome);
  EXPECT_FALSE(session.watch_calls(calls));
  EXPECT_TRUE(state.disabled.empty());
  EXPECT_EQ(calls_to("callback off"), 1); // the one enabled before the failure
}

// --- Sharing CUPTI with an idle torch.profiler (the subscription is the profiler's) ---

class shared_cupti_test : public cupti_session_test {
protected:
  void SetUp() override {
    cupti_session_test::SetUp();
    state.subscribe_result = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  }
  // The grant, with a re-check that logs when it runs and answers `after`.
  static cupti_sharing grant(cupti_holder after = cupti_holder::idle_torch_profiler) {
    return {cupti_holder::idle_torch_profiler, [after] {
              state.calls.emplace_back("recheck");
              return after;
            }};
  }
};

TEST_F(shared_cupti_test, times_with_the_activity_api_alone_and_leaves_cupti_as_found) {
  flush_one_user_kernel();

  attach_outcome outcome;
  cupti_session session(library, outcome, grant());
  EXPECT_TRUE(outcome.attached);
  EXPECT_TRUE(outcome.shared);
  EXPECT_TRUE(session.shared());
  EXPECT_EQ(calls_to("register"), 1);
  EXPECT_EQ(state.enabled.size(), 6U);
  // CUPTI's clock in nanoseconds, set before any kind is enabled (the profiler's is TSC ticks).
  const auto timestamp = std::find(state.calls.begin(), state.calls.end(), "timestamp");
  EXPECT_LT(timestamp, std::find(state.calls.begin(), state.calls.end(), "enable"));
  ASSERT_NE(state.clock, nullptr);
  const auto before =
      static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count());
  const std::uint64_t cupti_now = state.clock();
  EXPECT_GE(cupti_now, before);
  EXPECT_LT(cupti_now - before, 1'000'000'000U); // the same clock, in nanoseconds
  session.push(tag_kind::iteration, 1);
  session.pop(tag_kind::iteration);
  state.calls.clear();
  const activity_log log = session.detach();

  // Disable, flush, then the idle check again; no unsubscribe, no finalize.
  const std::vector<std::string> expected = {"disable", "disable", "disable", "disable",
                                             "disable", "disable", "flush",   "recheck"};
  EXPECT_EQ(without(state.calls, "dropped"), expected);
  ASSERT_EQ(log.gpu.size(), 1U);
  EXPECT_EQ(log.names[log.gpu[0].name], "user_kernel");
}

TEST_F(shared_cupti_test, calls_are_never_watched_without_a_subscription_of_kerntime_s_own) {
  library.enable_callback = fake_enable_callback;
  library.get_timestamp = fake_get_timestamp;
  attach_outcome outcome;
  cupti_session session(library, outcome, grant());
  ASSERT_TRUE(outcome.shared);
  const std::vector<watched_call> calls = {
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000}};
  EXPECT_FALSE(session.watch_calls(calls));
  EXPECT_TRUE(state.callbacks_enabled.empty());
}

TEST_F(shared_cupti_test, without_nanosecond_timestamps_cupti_is_not_shared) {
  state.timestamp_result = CUPTI_ERROR_NOT_SUPPORTED;
  attach_outcome outcome;
  const cupti_session shared(library, outcome, grant());
  EXPECT_FALSE(outcome.attached);
  EXPECT_NE(outcome.detail.find("cuptiActivityRegisterTimestampCallback"), std::string::npos);
  EXPECT_EQ(calls_to("finalize"), 0);

  state.subscribe_result = CUPTI_SUCCESS; // kerntime's own: CUPTI's default clock is ns already
  attach_outcome own;
  const cupti_session subscribed(library, own, grant());
  EXPECT_TRUE(own.attached);
}

TEST_F(shared_cupti_test, registers_its_buffer_callbacks_on_every_attach) {
  // The profiler registers its own whenever it prepares a trace; CUPTI keeps the last pair.
  for (int attach = 1; attach <= 3; ++attach) {
    attach_outcome outcome;
    cupti_session session(library, outcome, grant());
    ASSERT_TRUE(outcome.shared);
    (void)session.detach();
    EXPECT_EQ(calls_to("register"), attach);
  }
}

TEST_F(shared_cupti_test, only_the_grant_shares_any_other_holder_is_a_refusal_with_its_reason) {
  for (const cupti_holder holder : {cupti_holder::unknown, cupti_holder::torch_profiler_recording,
                                    cupti_holder::torch_profiler_armed, cupti_holder::kineto_daemon,
                                    cupti_holder::injected_tool}) {
    state = fake_cupti_state{};
    state.subscribe_result = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    attach_outcome outcome;
    const cupti_session session(library, outcome, {holder, {}});
    EXPECT_FALSE(outcome.attached);
    EXPECT_FALSE(outcome.shared);
    EXPECT_EQ(outcome.holder, holder);
    EXPECT_EQ(calls_to("register"), 0);
    EXPECT_TRUE(state.enabled.empty());
    EXPECT_EQ(calls_to("finalize"), 0);
  }
}

TEST_F(shared_cupti_test, the_grant_is_not_used_when_kerntime_can_subscribe) {
  state.subscribe_result = CUPTI_SUCCESS;
  attach_outcome outcome;
  cupti_session session(library, outcome, grant());
  EXPECT_TRUE(outcome.attached);
  EXPECT_FALSE(outcome.shared);
  (void)session.detach();
  EXPECT_EQ(calls_to("finalize"), 1);
  EXPECT_EQ(calls_to("recheck"), 0);
}

TEST_F(shared_cupti_test, a_second_kerntime_is_never_taken_for_an_idle_profiler) {
  attach_outcome first_outcome;
  cupti_session first(library, first_outcome, grant());
  attach_outcome second_outcome;
  const cupti_session second(library, second_outcome, grant());
  EXPECT_TRUE(first_outcome.shared);
  EXPECT_FALSE(second_outcome.attached);
  EXPECT_EQ(second_outcome.holder, cupti_holder::unknown);
}

// torch.profiler tags its ops with CUSTOM0 ids of its own while it records: such a tag on a
// record means the guess "idle" was wrong.
TEST_F(shared_cupti_test, a_tag_kerntime_did_not_push_makes_the_measurement_invalid) {
  flush_one_user_kernel();
  flushed.iteration_kernel(2561, "profiled_op", 300, 400, 11);

  attach_outcome outcome;
  cupti_session session(library, outcome, grant());
  session.push(tag_kind::iteration, 1);
  session.pop(tag_kind::iteration);
  try {
    (void)session.detach();
    FAIL() << "a foreign id must make the measurement invalid";
  } catch (const measurement_invalid& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("CUSTOM0 id 2561, which kerntime never pushed"), std::string::npos)
        << message;
    EXPECT_NE(message.find("shared with an idle torch.profiler"), std::string::npos) << message;
  }
}

TEST_F(shared_cupti_test, a_tag_of_a_kind_kerntime_never_pushes_makes_the_measurement_invalid) {
  testing::activity_buffer records;
  records.tag(CUPTI_EXTERNAL_CORRELATION_KIND_OPENACC, 5, 10);
  records.kernel("user_kernel", 100, 200, 10);
  state.records = &records;

  attach_outcome outcome;
  cupti_session session(library, outcome, grant());
  EXPECT_THROW((void)session.records_so_far(), measurement_invalid);
  EXPECT_THROW((void)session.detach(), measurement_invalid);
}

// CUPTI completes a buffer through the callbacks registered at that moment: a profiler's buffer
// still in flight when kerntime registered its own arrives at kerntime. Freeing it would corrupt
// the profiler's heap; it means the profiler was tracing.
TEST_F(shared_cupti_test, a_buffer_another_client_handed_out_is_never_freed_and_trips_the_wire) {
  testing::activity_buffer theirs; // not from kerntime's request callback; freeing it would crash
  theirs.kernel("profiled_op", 300, 400, 11);
  attach_outcome outcome;
  cupti_session session(library, outcome, grant());
  state.delivered_offsets = theirs.offsets();
  state.complete(nullptr, 0, theirs.data(), theirs.size(), theirs.size());
  try {
    (void)session.detach();
    FAIL() << "a foreign buffer must make the measurement invalid";
  } catch (const measurement_invalid& e) {
    EXPECT_NE(std::string(e.what()).find("buffer(s) that another CUPTI client handed out"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(theirs.records().size(), 1U);
}

TEST_F(shared_cupti_test, every_tag_kerntime_pushed_passes_the_tripwire) {
  testing::activity_buffer records;
  for (std::uint32_t id = 1; id <= 3; ++id) {
    records.flush_tag(id, 100 + id);
    const std::uint64_t at = std::uint64_t{id} * 1000;
    records.memset(at, at + 50, 100 + id);
    records.iteration_kernel(id, "user_kernel", at + 100, at + 200, 200 + id);
  }
  records.tag(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, 1, 300);
  records.kernel("clock_check", 9000, 9100, 300);
  state.records = &records;

  attach_outcome outcome;
  cupti_session session(library, outcome, grant());
  for (std::uint64_t id = 1; id <= 3; ++id) {
    session.push(tag_kind::flush, id);
    session.pop(tag_kind::flush);
    session.push(tag_kind::iteration, id);
    session.pop(tag_kind::iteration);
  }
  session.push(tag_kind::internal, 1);
  session.pop(tag_kind::internal);
  EXPECT_EQ(session.records_so_far().gpu.size(), 7U);
  state.records = nullptr; // delivered once
  EXPECT_EQ(session.detach().tags.size(), 7U);
}

TEST_F(shared_cupti_test, a_foreign_tag_under_kerntime_s_own_subscription_is_left_to_attribution) {
  state.subscribe_result = CUPTI_SUCCESS;
  testing::activity_buffer records;
  records.iteration_kernel(2561, "profiled_op", 300, 400, 11);
  state.records = &records;
  attach_outcome outcome;
  cupti_session session(library, outcome, grant());
  EXPECT_EQ(session.detach().tags.size(), 1U); // attribution refuses an id never launched
}

TEST_F(shared_cupti_test, a_profiler_that_woke_during_the_measurement_makes_it_invalid) {
  for (const cupti_holder after : {cupti_holder::torch_profiler_recording,
                                   cupti_holder::torch_profiler_armed, cupti_holder::unknown}) {
    state = fake_cupti_state{};
    state.subscribe_result = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    attach_outcome outcome;
    cupti_session session(library, outcome, grant(after));
    try {
      (void)session.detach();
      FAIL() << describe(after);
    } catch (const measurement_invalid& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("after the measurement " + std::string(describe(after))),
                std::string::npos)
          << message;
    }
    // The check ran once CUPTI was detached, never before.
    const auto flush = std::find(state.calls.begin(), state.calls.end(), "flush");
    const auto recheck = std::find(state.calls.begin(), state.calls.end(), "recheck");
    EXPECT_LT(flush, recheck);
    EXPECT_EQ(calls_to("finalize"), 0);
  }
}

} // namespace
} // namespace kerntime::detail
