#include "cupti/cupti_session.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <array>
#include <atomic>
#include <cstdlib>

#include "cupti/tag_kinds.hpp"
#include "kerntime/errors.hpp"

namespace kerntime::detail {
namespace {

// CONCURRENT_KERNEL, never KERNEL (it serialises every kernel). RUNTIME and DRIVER are both
// needed for external-correlation records to cover direct driver launches.
constexpr std::array<CUpti_ActivityKind, 6> activity_kinds = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_DRIVER,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};

constexpr std::size_t buffer_bytes = 8u << 20;
constexpr std::size_t buffer_alignment = 8;

// CUPTI's buffer callbacks carry no user pointer: the attached session is process-wide.
std::atomic<cupti_session*> active_session{nullptr};

void CUPTIAPI request_buffer(std::uint8_t** buffer, std::size_t* size,
                             std::size_t* max_records) noexcept {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(buffer_alignment, buffer_bytes));
  *size = *buffer != nullptr ? buffer_bytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext /*context*/, std::uint32_t /*stream*/,
                               std::uint8_t* buffer, std::size_t /*size*/,
                               std::size_t valid_size) noexcept {
  if (cupti_session* session = active_session.load(); session != nullptr) {
    session->on_buffer_completed(buffer, valid_size);
  }
  std::free(buffer);
}

void CUPTIAPI ignore_callback(void* /*userdata*/, CUpti_CallbackDomain /*domain*/,
                              CUpti_CallbackId /*cbid*/, const void* /*data*/) {}

} // namespace

cupti_session::cupti_session(const cupti_library& cupti, attach_outcome& outcome) : cupti_(cupti) {
  cupti_session* expected = nullptr;
  if (!active_session.compare_exchange_strong(expected, this)) {
    outcome.result = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    outcome.detail = "another kerntime measurement in this process holds CUPTI";
    return;
  }
  auto fail = [&](const char* call, CUptiResult result) {
    outcome.result = result;
    outcome.detail = fmt::format("{} returned {}", call, cupti_.describe(result));
    detach_quietly();
  };
  if (const CUptiResult r = cupti_.subscribe(&subscriber_, ignore_callback, nullptr);
      r != CUPTI_SUCCESS) {
    subscriber_ = nullptr;
    // Not ours to finalize: someone else's subscription may be alive.
    active_session.store(nullptr);
    outcome.result = r;
    outcome.detail = fmt::format("cuptiSubscribe returned {}", cupti_.describe(r));
    return;
  }
  attached_ = true;
  if (const CUptiResult r = cupti_.activity_register_callbacks(request_buffer, buffer_completed);
      r != CUPTI_SUCCESS) {
    fail("cuptiActivityRegisterCallbacks", r);
    return;
  }
  for (const CUpti_ActivityKind kind : activity_kinds) {
    if (const CUptiResult r = cupti_.activity_enable(kind); r != CUPTI_SUCCESS) {
      fail("cuptiActivityEnable", r);
      return;
    }
  }
  outcome.attached = true;
}

cupti_session::~cupti_session() {
  detach_quietly();
}

void cupti_session::push(tag_kind kind, std::uint64_t id) {
  if (const CUptiResult r = cupti_.push_external_correlation_id(external_kind(kind), id);
      r != CUPTI_SUCCESS) {
    throw measurement_invalid(
        fmt::format("cuptiActivityPushExternalCorrelationId failed: {}", cupti_.describe(r)));
  }
}

void cupti_session::pop(tag_kind kind) {
  std::uint64_t id = 0;
  if (const CUptiResult r = cupti_.pop_external_correlation_id(external_kind(kind), &id);
      r != CUPTI_SUCCESS) {
    throw measurement_invalid(
        fmt::format("cuptiActivityPopExternalCorrelationId failed: {}", cupti_.describe(r)));
  }
}

void cupti_session::on_buffer_completed(std::uint8_t* buffer, std::size_t valid_size) noexcept {
  try {
    const std::lock_guard lock(mutex_);
    CUpti_Activity* record = nullptr;
    while (cupti_.activity_get_next_record(buffer, valid_size, &record) == CUPTI_SUCCESS) {
      decoder_.decode(*record);
    }
  } catch (const std::exception& e) {
    const std::lock_guard lock(mutex_);
    decode_error_ = e.what();
  } catch (...) {
    const std::lock_guard lock(mutex_);
    decode_error_ = "unknown exception while decoding CUPTI records";
  }
}

void cupti_session::detach_quietly() noexcept {
  if (!attached_) {
    if (active_session.load() == this) {
      active_session.store(nullptr);
    }
    return;
  }
  for (const CUpti_ActivityKind kind : activity_kinds) {
    cupti_.activity_disable(kind);
  }
  cupti_.activity_flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  // Outside our lock: CUPTI may call back into on_buffer_completed while counting.
  std::size_t dropped = 0;
  std::size_t count = 0;
  if (cupti_.activity_get_num_dropped_records(nullptr, 0, &count) == CUPTI_SUCCESS) {
    dropped += count;
  }
  CUcontext context = nullptr;
  void* get_current = nullptr;
  cudaDriverEntryPointQueryResult status{};
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &get_current, 12000, cudaEnableDefault,
                                       &status) == cudaSuccess &&
      get_current != nullptr &&
      reinterpret_cast<CUresult (*)(CUcontext*)>(get_current)(&context) == CUDA_SUCCESS &&
      context != nullptr &&
      cupti_.activity_get_num_dropped_records(context, 0, &count) == CUPTI_SUCCESS) {
    dropped += count;
  }
  cupti_.unsubscribe(subscriber_);
  cupti_.finalize();
  subscriber_ = nullptr;
  attached_ = false;
  active_session.store(nullptr);
  const std::lock_guard lock(mutex_);
  log_.dropped_records += dropped;
}

activity_log cupti_session::records_so_far() {
  // Outside our lock: the flush calls back into on_buffer_completed.
  cupti_.activity_flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  const std::lock_guard lock(mutex_);
  if (!decode_error_.empty()) {
    throw measurement_invalid("decoding CUPTI records failed: " + decode_error_);
  }
  return log_;
}

activity_log cupti_session::detach() {
  detach_quietly();
  const std::lock_guard lock(mutex_);
  if (!decode_error_.empty()) {
    throw measurement_invalid("decoding CUPTI records failed: " + decode_error_);
  }
  return std::move(log_);
}

} // namespace kerntime::detail
