#include "cupti/cupti_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <vector>

namespace kerntime::detail {

std::string cupti_library::describe(CUptiResult result) const {
  const char* text = nullptr;
  if (get_result_string != nullptr && get_result_string(result, &text) == CUPTI_SUCCESS &&
      text != nullptr) {
    return fmt::format("{} ({})", text, static_cast<int>(result));
  }
  return fmt::format("CUPTI error {}", static_cast<int>(result));
}

void* find_cupti_symbol(void* handle, const char* symbol, std::string& missing) {
  void* found = dlsym(handle, symbol);
  if (found == nullptr) {
    missing += missing.empty() ? symbol : fmt::format(", {}", symbol);
  }
  return found;
}

namespace {

std::variant<const cupti_library*, std::string> load_once() {
  std::vector<std::string> candidates;
  if (const char* path = std::getenv("KERNTIME_CUPTI_PATH"); path != nullptr && *path != '\0') {
    candidates.emplace_back(path); // an explicit path is the only one tried
  } else {
    candidates = {"libcupti.so.13", "/usr/local/cuda/lib64/libcupti.so.13",
                  "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13"};
  }
  void* handle = nullptr;
  std::string errors;
  for (const auto& candidate : candidates) {
    handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
      break;
    }
    const char* why = dlerror();
    errors += fmt::format("{}{}: {}", errors.empty() ? "" : "; ", candidate,
                          why != nullptr ? why : "not found");
  }
  if (handle == nullptr) {
    return fmt::format("cannot load CUPTI ({}); set KERNTIME_CUPTI_PATH to libcupti.so.13", errors);
  }
  static cupti_library library;
  library.handle = handle;
  std::string missing;
  bind_cupti_symbol(handle, "cuptiSubscribe", library.subscribe, missing);
  bind_cupti_symbol(handle, "cuptiUnsubscribe", library.unsubscribe, missing);
  bind_cupti_symbol(handle, "cuptiActivityEnable", library.activity_enable, missing);
  bind_cupti_symbol(handle, "cuptiActivityDisable", library.activity_disable, missing);
  bind_cupti_symbol(handle, "cuptiActivityRegisterCallbacks", library.activity_register_callbacks,
                    missing);
  bind_cupti_symbol(handle, "cuptiActivityRegisterTimestampCallback",
                    library.activity_register_timestamp_callback, missing);
  bind_cupti_symbol(handle, "cuptiActivityFlushAll", library.activity_flush_all, missing);
  bind_cupti_symbol(handle, "cuptiActivityGetNextRecord", library.activity_get_next_record,
                    missing);
  bind_cupti_symbol(handle, "cuptiActivityGetNumDroppedRecords",
                    library.activity_get_num_dropped_records, missing);
  bind_cupti_symbol(handle, "cuptiActivityPushExternalCorrelationId",
                    library.push_external_correlation_id, missing);
  bind_cupti_symbol(handle, "cuptiActivityPopExternalCorrelationId",
                    library.pop_external_correlation_id, missing);
  bind_cupti_symbol(handle, "cuptiFinalize", library.finalize, missing);
  bind_cupti_symbol(handle, "cuptiGetResultString", library.get_result_string, missing);
  bind_cupti_symbol(handle, "cuptiGetVersion", library.get_version, missing);
  if (!missing.empty()) {
    return fmt::format("the loaded CUPTI lacks {}; it is older than CUPTI 13", missing);
  }
  std::string optional_missing; // timing goes on without them (cupti_library says how)
  bind_cupti_symbol(handle, "cuptiEnableCallback", library.enable_callback, optional_missing);
  bind_cupti_symbol(handle, "cuptiGetTimestamp", library.get_timestamp, optional_missing);
  return &library;
}

} // namespace

void CUPTIAPI ignore_cupti_callback(void* /*userdata*/, CUpti_CallbackDomain /*domain*/,
                                    CUpti_CallbackId /*cbid*/, const void* /*data*/) {}

std::variant<const cupti_library*, std::string> load_cupti() {
  return load_once_per_process<cupti_library>(load_once);
}

} // namespace kerntime::detail
