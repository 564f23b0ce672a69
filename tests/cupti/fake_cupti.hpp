#pragma once
// A CUPTI stand-in for the CPU tests of the real CUPTI session and scope: the same entry-point
// table, recording each call, whose buffer flush hands the session's own callbacks a buffer of
// real CUPTI records.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "activity_buffer.hpp"
#include "cupti/cupti_library.hpp"

namespace kerntime::detail {

struct fake_cupti_state {
  std::vector<std::string> calls;
  std::vector<CUpti_ActivityKind> enabled;
  std::vector<CUpti_ActivityKind> disabled;
  CUpti_CallbackFunc api_callback = nullptr;
  std::vector<std::pair<CUpti_CallbackId, std::uint32_t>> callbacks_enabled; // (cbid, on)
  CUptiResult enable_callback_result = CUPTI_SUCCESS;
  int enable_callback_fails_at = -1; // the call (0-based) that fails; -1: none
  std::uint64_t now = 1000;
  CUptiResult subscribe_result = CUPTI_SUCCESS;
  CUptiResult enable_result = CUPTI_SUCCESS;
  CUptiResult push_result = CUPTI_SUCCESS;
  std::size_t dropped = 0;
  const testing::activity_buffer* records = nullptr;
  std::vector<std::size_t> delivered_offsets;
  std::uint8_t* delivered = nullptr;
  CUpti_BuffersCallbackRequestFunc request = nullptr;
  CUpti_BuffersCallbackCompleteFunc complete = nullptr;
  CUpti_TimestampCallbackFunc clock = nullptr;
  CUptiResult timestamp_result = CUPTI_SUCCESS;
};
inline fake_cupti_state state;

inline CUptiResult fake_subscribe(CUpti_SubscriberHandle* handle, CUpti_CallbackFunc callback,
                                  void*) {
  state.calls.emplace_back("subscribe");
  state.api_callback = callback;
  *handle = reinterpret_cast<CUpti_SubscriberHandle>(0x1);
  return state.subscribe_result;
}
inline CUptiResult fake_unsubscribe(CUpti_SubscriberHandle) {
  state.calls.emplace_back("unsubscribe");
  return CUPTI_SUCCESS;
}
inline CUptiResult fake_enable(CUpti_ActivityKind kind) {
  state.calls.emplace_back("enable");
  state.enabled.push_back(kind);
  return state.enable_result;
}
inline CUptiResult fake_disable(CUpti_ActivityKind kind) {
  state.calls.emplace_back("disable");
  state.disabled.push_back(kind);
  return CUPTI_SUCCESS;
}
inline CUptiResult fake_enable_callback(uint32_t on, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                        CUpti_CallbackId cbid) {
  state.calls.emplace_back(on != 0 ? "callback on" : "callback off");
  if (on != 0 && static_cast<int>(std::count_if(state.callbacks_enabled.begin(),
                                                state.callbacks_enabled.end(), [](const auto& c) {
                                                  return c.second != 0;
                                                })) == state.enable_callback_fails_at) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  state.callbacks_enabled.emplace_back(cbid, on);
  return CUPTI_SUCCESS;
}
inline CUptiResult fake_get_timestamp(uint64_t* now) {
  *now = state.now += 10;
  return CUPTI_SUCCESS;
}
inline CUptiResult fake_register(CUpti_BuffersCallbackRequestFunc request,
                                 CUpti_BuffersCallbackCompleteFunc complete) {
  state.calls.emplace_back("register");
  state.request = request;
  state.complete = complete;
  return CUPTI_SUCCESS;
}
inline CUptiResult fake_timestamp(CUpti_TimestampCallbackFunc clock) {
  state.calls.emplace_back("timestamp");
  state.clock = clock;
  return state.timestamp_result;
}
inline CUptiResult fake_flush(uint32_t) {
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
inline CUptiResult fake_next(uint8_t* buffer, size_t valid, CUpti_Activity** record) {
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
inline CUptiResult fake_dropped(CUcontext context, uint32_t, size_t* dropped) {
  state.calls.emplace_back("dropped");
  *dropped = context == nullptr ? state.dropped : 0;
  return CUPTI_SUCCESS;
}
inline CUptiResult fake_push(CUpti_ExternalCorrelationKind kind, uint64_t id) {
  state.calls.emplace_back("push " + std::to_string(static_cast<int>(kind)) + " " +
                           std::to_string(id));
  return state.push_result;
}
inline CUptiResult fake_pop(CUpti_ExternalCorrelationKind kind, uint64_t* id) {
  state.calls.emplace_back("pop " + std::to_string(static_cast<int>(kind)));
  *id = 0;
  return CUPTI_SUCCESS;
}
inline CUptiResult fake_finalize() {
  state.calls.emplace_back("finalize");
  return CUPTI_SUCCESS;
}
inline CUptiResult fake_result_string(CUptiResult result, const char** text) {
  *text = result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
              ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"
              : "CUPTI_ERROR_SOMETHING";
  return CUPTI_SUCCESS;
}

inline cupti_library fake_library() {
  return {.subscribe = fake_subscribe,
          .unsubscribe = fake_unsubscribe,
          .activity_enable = fake_enable,
          .activity_disable = fake_disable,
          .activity_register_callbacks = fake_register,
          .activity_register_timestamp_callback = fake_timestamp,
          .activity_flush_all = fake_flush,
          .activity_get_next_record = fake_next,
          .activity_get_num_dropped_records = fake_dropped,
          .push_external_correlation_id = fake_push,
          .pop_external_correlation_id = fake_pop,
          .finalize = fake_finalize,
          .get_result_string = fake_result_string};
}

// How often the session made the CUPTI call `name` so far.
inline long calls_to(const std::string& name) {
  return std::count(state.calls.begin(), state.calls.end(), name);
}

} // namespace kerntime::detail
