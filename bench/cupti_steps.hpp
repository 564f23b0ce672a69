#pragma once
// CUPTI attached and detached directly, step by step in the order a kerntime measurement does it
// (subscribe, buffer callbacks, each activity kind; disable, forced flush, unsubscribe,
// finalize), for the benchmarks that price those steps (bench_fixed_cost_parts,
// bench_launch_cost). Every step runs through `step(name, action)`, so a caller times each step
// or only the whole.

#include <cupti.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "cupti/cupti_library.hpp"

namespace kerntime::bench {

inline void CUPTIAPI request_cupti_buffer(std::uint8_t** buffer, std::size_t* size,
                                          std::size_t* max_records) {
  constexpr std::size_t bytes = 8u << 20;
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, bytes));
  *size = *buffer != nullptr ? bytes : 0;
  *max_records = 0;
}

inline void check_cupti(CUptiResult result, const char* call) {
  if (result != CUPTI_SUCCESS) {
    throw std::runtime_error(std::string(call) + " failed: " + std::to_string(result));
  }
}

// How the steps name the kinds kerntime enables.
inline std::string kind_name(CUpti_ActivityKind kind) {
  switch (kind) {
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    return "concurrent_kernel";
  case CUPTI_ACTIVITY_KIND_MEMSET:
    return "memset";
  case CUPTI_ACTIVITY_KIND_MEMCPY:
    return "memcpy";
  case CUPTI_ACTIVITY_KIND_RUNTIME:
    return "runtime";
  case CUPTI_ACTIVITY_KIND_DRIVER:
    return "driver";
  case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
    return "external_correlation";
  default:
    return std::to_string(static_cast<int>(kind));
  }
}

// Subscribes, registers the buffer callbacks (`completed` receives the records) and enables
// `kinds`; returns the subscriber.
// `api_callback` is the subscription's callback (kerntime's ignores every call).
template <typename Step>
CUpti_SubscriberHandle
attach_cupti_steps(const detail::cupti_library& cupti, const std::vector<CUpti_ActivityKind>& kinds,
                   CUpti_BuffersCallbackCompleteFunc completed, Step step,
                   CUpti_CallbackFunc api_callback = detail::ignore_cupti_callback) {
  CUpti_SubscriberHandle subscriber = nullptr;
  step("subscribe",
       [&] { check_cupti(cupti.subscribe(&subscriber, api_callback, nullptr), "cuptiSubscribe"); });
  step("register_callbacks", [&] {
    check_cupti(cupti.activity_register_callbacks(request_cupti_buffer, completed),
                "cuptiActivityRegisterCallbacks");
  });
  for (const CUpti_ActivityKind kind : kinds) {
    step("enable_" + kind_name(kind),
         [&] { check_cupti(cupti.activity_enable(kind), "cuptiActivityEnable"); });
  }
  return subscriber;
}

// Disables `kinds`, flushes the buffers (to `completed`), unsubscribes and finalizes (unless
// `finalize` is false: CUPTI then stays initialised, as it would between measurements that kept
// it).
template <typename Step>
void detach_cupti_steps(const detail::cupti_library& cupti, CUpti_SubscriberHandle subscriber,
                        const std::vector<CUpti_ActivityKind>& kinds, Step step,
                        bool finalize = true) {
  step("disable_all", [&] {
    for (const CUpti_ActivityKind kind : kinds) {
      cupti.activity_disable(kind);
    }
  });
  step("flush_all", [&] { cupti.activity_flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); });
  step("unsubscribe", [&] { cupti.unsubscribe(subscriber); });
  if (finalize) {
    step("finalize", [&] { cupti.finalize(); });
  }
}

} // namespace kerntime::bench
