#pragma once
// CUPTI, loaded at run time: a binary built with kerntime starts (and falls back to CUDA events)
// where libcupti is missing. The library is never unloaded: CUPTI 13.0/13.1 crash at exit when
// dlclose'd without cuptiFinalize.

#include <cupti.h>

#include <mutex>
#include <string>
#include <variant>

namespace kerntime::detail {

// The CUPTI entry points kerntime uses. A table, so tests and the session share one shape.
struct cupti_library {
  CUptiResult (*subscribe)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*) = nullptr;
  CUptiResult (*unsubscribe)(CUpti_SubscriberHandle) = nullptr;
  CUptiResult (*activity_enable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*activity_disable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*activity_register_callbacks)(CUpti_BuffersCallbackRequestFunc,
                                             CUpti_BuffersCallbackCompleteFunc) = nullptr;
  CUptiResult (*activity_register_timestamp_callback)(CUpti_TimestampCallbackFunc) = nullptr;
  CUptiResult (*activity_flush_all)(uint32_t) = nullptr;
  CUptiResult (*activity_get_next_record)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
  CUptiResult (*activity_get_num_dropped_records)(CUcontext, uint32_t, size_t*) = nullptr;
  CUptiResult (*push_external_correlation_id)(CUpti_ExternalCorrelationKind, uint64_t) = nullptr;
  CUptiResult (*pop_external_correlation_id)(CUpti_ExternalCorrelationKind, uint64_t*) = nullptr;
  CUptiResult (*finalize)() = nullptr;
  CUptiResult (*get_result_string)(CUptiResult, const char**) = nullptr;
  CUptiResult (*get_version)(uint32_t*) = nullptr;
  // For watching calls through callbacks (cupti/watched_calls.hpp); null where a CUPTI lacks
  // them, and the trials then record every API call as before.
  CUptiResult (*enable_callback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                 CUpti_CallbackId) = nullptr;
  CUptiResult (*get_timestamp)(uint64_t*) = nullptr;
  // The loaded library, for entry points that a CUPTI may lack without losing timing (the
  // Profiler Host API of src/counters binds its own table from it).
  void* handle = nullptr;

  // "CUPTI_ERROR_NOT_SUPPORTED (...)": the code's name from CUPTI when it can say.
  [[nodiscard]] std::string describe(CUptiResult result) const;
};

// The process-wide CUPTI, loaded on first use from $KERNTIME_CUPTI_PATH, else libcupti.so.13 on
// the loader's path, else the CUDA toolkit's usual folders. On failure: why, in words.
[[nodiscard]] std::variant<const cupti_library*, std::string> load_cupti();

// The callback a subscription that wants no callbacks registers (the counter pass subscribes
// only to initialise CUPTI; the benchmarks that price CUPTI's steps).
void CUPTIAPI ignore_cupti_callback(void* userdata, CUpti_CallbackDomain domain,
                                    CUpti_CallbackId cbid, const void* data);

// `symbol` in the loaded library `handle`, or null with the name added to the comma-separated
// `missing`. Used for timing's entry points and the Profiler Host API's.
[[nodiscard]] void* find_cupti_symbol(void* handle, const char* symbol, std::string& missing);

// `load()`'s answer, asked once per process (per Load type) and kept: for each table of entry
// points bound from the loaded CUPTI.
template <typename Library, typename Load>
std::variant<const Library*, std::string> load_once_per_process(Load load) {
  static std::once_flag once;
  static std::variant<const Library*, std::string> loaded;
  std::call_once(once, [&] { loaded = load(); });
  return loaded;
}

template <typename F>
bool bind_cupti_symbol(void* handle, const char* symbol, F& slot, std::string& missing) {
  slot = reinterpret_cast<F>(find_cupti_symbol(handle, symbol, missing));
  return slot != nullptr;
}

} // namespace kerntime::detail
