// The real CUPTI session driven by a CUPTI stand-in: the same entry-point table, whose buffer
// flush hands the session's own callbacks a buffer of real CUPTI records.

#include "cupti/cupti_session.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "activity_buffer.hpp"
#include "kerntime/errors.hpp"

namespace kerntime::detail {
namespace {

struct fake_cupti_state {
  std::vector<std::string> calls;
  std::vector<CUpti_ActivityKind> enabled;
  CUptiResult subscribe_result = CUPTI_SUCCESS;
  CUptiResult enable_result = CUPTI_SUCCESS;
  CUptiResult push_result = CUPTI_SUCCESS;
  std::size_t dropped = 0;
  const testing::activity_buffer* records = nullptr;
  std::vector<std::size_t> delivered_offsets;
  std::uint8_t* delivered = nullptr;
  CUpti_BuffersCallbackRequestFunc request = nullptr;
  CUpti_BuffersCallbackCompleteFunc complete = nullptr;
};
fake_cupti_state state;

CUptiResult fake_subscribe(CUpti_SubscriberHandle* handle, CUpti_CallbackFunc, void*) {
  state.calls.emplace_back("subscribe");
  *handle = reinterpret_cast<CUpti_SubscriberHandle>(0x1);
  return state.subscribe_result;
}
CUptiResult fake_unsubscribe(CUpti_SubscriberHandle) {
  state.calls.emplace_back("unsubscribe");
  return CUPTI_SUCCESS;
}
CUptiResult fake_enable(CUpti_ActivityKind kind) {
  state.calls.emplace_back("enable");
  state.enabled.push_back(kind);
  return state.enable_result;
}
CUptiResult fake_disable(CUpti_ActivityKind) {
  state.calls.emplace_back("disable");
  return CUPTI_SUCCESS;
}
CUptiResult fake_register(CUpti_BuffersCallbackRequestFunc request,
                          CUpti_BuffersCallbackCompleteFunc complete) {
  state.calls.emplace_back("register");
  state.request = request;
  state.complete = complete;
  return CUPTI_SUCCESS;
}
CUptiResult fake_flush(uint32_t) {
  state.calls.emplace_back("flush");
  if (state.records != nullptr && state.request != nullptr) {
    std::uint8_t* buffer = nullptr;
    std::size_t size = 0;
    std::size_t max_records = 0;
    state.request(&buffer, &size, &max_records);
    EXPECT_GE(size, state.records->size());
    auto* copy = const_cast<testing::activity_buffer*>(state.records);
    std::memcpy(buffer, copy->data(), copy->size());
    state.delivered = buffer;
    state.delivered_offsets = copy->offsets();
    state.complete(nullptr, 0, buffer, size, copy->size());
  }
  return CUPTI_SUCCESS;
}
CUptiResult fake_next(uint8_t* buffer, size_t valid, CUpti_Activity** record) {
  const auto& offsets = state.delivered_offsets;
  std::size_t next = 0;
  if (*record != nullptr) {
    const auto current =
        static_cast<std::size_t>(reinterpret_cast<std::uint8_t*>(*record) - buffer);
    const auto it = std::find(offsets.begin(), offsets.end(), current);
    next = static_cast<std::size_t>(it - offsets.begin()) + 1;
  }
  if (next >= offsets.size() || offsets[next] >= valid) {
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
  }
  *record = reinterpret_cast<CUpti_Activity*>(buffer + offsets[next]);
  return CUPTI_SUCCESS;
}
CUptiResult fake_dropped(CUcontext context, uint32_t, size_t* dropped) {
  state.calls.emplace_back("dropped");
  *dropped = context == nullptr ? state.dropped : 0;
  return CUPTI_SUCCESS;
}
CUptiResult fake_push(CUpti_ExternalCorrelationKind kind, uint64_t id) {
  state.calls.emplace_back("push " + std::to_string(static_cast<int>(kind)) + " " +
                           std::to_string(id));
  return state.push_result;
}
CUptiResult fake_pop(CUpti_ExternalCorrelationKind kind, uint64_t* id) {
  state.calls.emplace_back("pop " + std::to_string(static_cast<int>(kind)));
  *id = 0;
  return CUPTI_SUCCESS;
}
CUptiResult fake_finalize() {
  state.calls.emplace_back("finalize");
  return CUPTI_SUCCESS;
}
CUptiResult fake_result_string(CUptiResult result, const char** text) {
  *text = result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
              ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"
              : "CUPTI_ERROR_SOMETHING";
  return CUPTI_SUCCESS;
}

cupti_library fake_library() {
  return {.subscribe = fake_subscribe,
          .unsubscribe = fake_unsubscribe,
          .activity_enable = fake_enable,
          .activity_disable = fake_disable,
          .activity_register_callbacks = fake_register,
          .activity_flush_all = fake_flush,
          .activity_get_next_record = fake_next,
          .activity_get_num_dropped_records = fake_dropped,
          .push_external_correlation_id = fake_push,
          .pop_external_correlation_id = fake_pop,
          .finalize = fake_finalize,
          .get_result_string = fake_result_string};
}

// How often the session made the CUPTI call `name` so far.
long calls_to(const std::string& name) {
  return std::count(state.calls.begin(), state.calls.end(), name);
}

class cupti_session_test : public ::testing::Test {
protected:
  void SetUp() override { state = fake_cupti_state{}; }

  // Attaches a session and lets it go again: what the attach reported.
  [[nodiscard]] attach_outcome attach_once() const {
    attach_outcome outcome;
    const cupti_session session(library, outcome);
    return outcome;
  }
  cupti_library library = fake_library();
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
  testing::activity_buffer records;
  records.iteration_tag(1, 10);
  records.kernel("user_kernel", 100, 200, 10);
  state.records = &records;

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

} // namespace
} // namespace kerntime::detail
