#include "cupti/cupti_session.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_set>
#include <utility>

#include "cupti/cupti_scope.hpp"
#include "cupti/current_context.hpp"
#include "cupti/tag_kinds.hpp"
#include "kerntime/errors.hpp"

namespace kerntime::detail {
namespace {

// CONCURRENT_KERNEL, never KERNEL (it serialises every kernel). RUNTIME and DRIVER are both
// needed for external-correlation records to cover direct driver launches: a kernel carries the
// correlation id of the outermost call that launched it (the runtime's, when the runtime did).
// While calls are watched (watch_calls), the API kinds are off.
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

// Held in active_session while a scope's end finalizes (while_no_measurement): no measurement
// attaches meanwhile, and the callbacks see no session. Never dereferenced.
char finalizing_marker = 0;
cupti_session* finalizing() noexcept {
  return reinterpret_cast<cupti_session*>(&finalizing_marker); // NOLINT: a marker, not an object
}

// The attached measurement the callbacks report to, if any.
cupti_session* attached_session() noexcept {
  cupti_session* const session = active_session.load();
  return session == finalizing() ? nullptr : session;
}

// A scope's end finalizes in a few milliseconds; a measurement that starts meanwhile waits for
// it rather than calling CUPTI taken.
constexpr auto finalizing_wait = std::chrono::seconds(2);

constexpr std::array<CUpti_ActivityKind, 3> api_record_kinds = {
    CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};

// The tags this thread has pushed, innermost last: a watched call takes the innermost.
struct pushed_tag {
  tag_kind kind = tag_kind::iteration;
  std::uint64_t id = 0;
  bool pushed_to_cupti = false; // as an external-correlation id (when calls are not watched)
};
constexpr std::size_t max_tag_depth = 8; // kerntime nests at most two
struct tag_stack {
  std::array<pushed_tag, max_tag_depth> tags{};
  std::size_t depth = 0;
};
thread_local tag_stack this_thread_tags;

// The subscription's callback: only the calls watch_calls enabled come here.
void CUPTIAPI on_api_call(void* /*userdata*/, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                          const void* data) {
  if (cupti_session* session = attached_session(); session != nullptr && data != nullptr) {
    session->on_watched_call(domain, cbid, *static_cast<const CUpti_CallbackData*>(data));
  }
}

// The buffers kerntime handed to CUPTI and has not had back. CUPTI completes a buffer through the
// callbacks registered at that moment: while CUPTI is shared, a buffer another client handed out
// can arrive here, and must never be freed by kerntime. Never destroyed: CUPTI may call back
// while the process exits.
struct outstanding_buffers {
  std::mutex mutex;
  std::unordered_set<std::uint8_t*> buffers;
};
outstanding_buffers& our_buffers() {
  static auto* const buffers = new outstanding_buffers; // NOLINT(cppcoreguidelines-owning-memory)
  return *buffers;
}

void CUPTIAPI request_buffer(std::uint8_t** buffer, std::size_t* size,
                             std::size_t* max_records) noexcept {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(buffer_alignment, buffer_bytes));
  *size = 0;
  *max_records = 0;
  if (*buffer == nullptr) {
    return;
  }
  try {
    const std::lock_guard lock(our_buffers().mutex);
    our_buffers().buffers.insert(*buffer);
    *size = buffer_bytes;
  } catch (...) {
    std::free(*buffer); // no room to remember it: hand CUPTI no buffer
    *buffer = nullptr;
  }
}

// True when `buffer` came from request_buffer, which it then forgets.
bool take_back(std::uint8_t* buffer) noexcept {
  const std::lock_guard lock(our_buffers().mutex);
  return our_buffers().buffers.erase(buffer) == 1;
}

void CUPTIAPI buffer_completed(CUcontext /*context*/, std::uint32_t /*stream*/,
                               std::uint8_t* buffer, std::size_t /*size*/,
                               std::size_t valid_size) noexcept {
  const bool ours = take_back(buffer);
  if (cupti_session* session = attached_session(); session != nullptr) {
    session->on_buffer_completed(buffer, valid_size, ours);
  }
  if (ours) {
    std::free(buffer);
  }
}

// CUPTI's own clock on Linux, in nanoseconds. torch.profiler registers a callback that returns
// TSC ticks (its "approximate clock") and never takes it back: with it, every duration reads
// ~2x long on a 2.1 GHz host. Registered on every attach, before any kind is enabled.
std::uint64_t CUPTIAPI realtime_ns() noexcept {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000U +
         static_cast<std::uint64_t>(now.tv_nsec);
}

} // namespace

cupti_session::cupti_session(const cupti_library& cupti, attach_outcome& outcome,
                             cupti_sharing sharing)
    : cupti_(cupti), sharing_(std::move(sharing)) {
  cupti_session* expected = nullptr;
  const auto give_up_waiting = std::chrono::steady_clock::now() + finalizing_wait;
  while (!active_session.compare_exchange_strong(expected, this)) {
    if (expected != finalizing() || std::chrono::steady_clock::now() > give_up_waiting) {
      outcome.result = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
      outcome.detail = expected == finalizing()
                           ? "a kerntime session's end was finalizing CUPTI for over 2 s"
                           : "another kerntime measurement in this process holds CUPTI";
      return;
    }
    expected = nullptr;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  outcome.holder = sharing_.holder;
  auto fail = [&](const char* call, CUptiResult result) {
    outcome.result = result;
    outcome.detail = fmt::format("{} returned {}", call, cupti_.describe(result));
    detach_quietly();
  };
  const CUptiResult subscribed = cupti_.subscribe(&subscriber_, on_api_call, nullptr);
  if (subscribed == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED &&
      sharing_.holder == cupti_holder::idle_torch_profiler) {
    // Kineto keeps its subscription from its first trace to the end of the process; while it
    // traces nothing, the Activity API (which needs no subscriber) is free to use.
    subscriber_ = nullptr;
    shared_ = true;
  } else if (subscribed != CUPTI_SUCCESS) {
    subscriber_ = nullptr;
    // Not ours to finalize: someone else's subscription may be alive.
    active_session.store(nullptr);
    outcome.result = subscribed;
    outcome.detail = fmt::format("cuptiSubscribe returned {}", cupti_.describe(subscribed));
    return;
  }
  attached_ = true;
  // Registered on every attach: a profiler sharing CUPTI registers its own callbacks (buffers
  // and timestamps) whenever it prepares a trace, and CUPTI keeps only the last ones.
  const CUptiResult clock_registered = cupti_.activity_register_timestamp_callback(realtime_ns);
  if (clock_registered != CUPTI_SUCCESS && shared_) {
    // Without nanosecond timestamps a shared measurement would be in the profiler's units.
    // Under kerntime's own subscription CUPTI's default clock is already nanoseconds.
    fail("cuptiActivityRegisterTimestampCallback", clock_registered);
    return;
  }
  records_use_realtime_ = clock_registered == CUPTI_SUCCESS;
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
  outcome.shared = shared_;
}

cupti_session::~cupti_session() {
  detach_quietly();
}

void cupti_session::push(tag_kind kind, std::uint64_t id) {
  tag_stack& stack = this_thread_tags;
  if (stack.depth == max_tag_depth) {
    throw measurement_invalid(fmt::format(
        "kerntime's tags are nested deeper than {}; this is a kerntime bug", max_tag_depth));
  }
  pushed_.add(kind, id);
  const bool to_cupti = watched_.empty();
  if (to_cupti) {
    if (const CUptiResult r = cupti_.push_external_correlation_id(external_kind(kind), id);
        r != CUPTI_SUCCESS) {
      throw measurement_invalid(
          fmt::format("cuptiActivityPushExternalCorrelationId failed: {}", cupti_.describe(r)));
    }
  }
  stack.tags.at(stack.depth++) = {kind, id, to_cupti};
}

void cupti_session::pop(tag_kind kind) {
  tag_stack& stack = this_thread_tags;
  if (stack.depth == 0) {
    return;
  }
  if (!stack.tags.at(--stack.depth).pushed_to_cupti) {
    return;
  }
  std::uint64_t id = 0;
  if (const CUptiResult r = cupti_.pop_external_correlation_id(external_kind(kind), &id);
      r != CUPTI_SUCCESS) {
    throw measurement_invalid(
        fmt::format("cuptiActivityPopExternalCorrelationId failed: {}", cupti_.describe(r)));
  }
}

bool cupti_session::watch_calls(std::span<const watched_call> calls) {
  // Shared, there is no subscription of kerntime's own to call back through.
  if (!attached_ || shared_ || cupti_.enable_callback == nullptr ||
      cupti_.get_timestamp == nullptr || calls.empty() || !watched_.empty()) {
    return false;
  }
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (cupti_.enable_callback(1, subscriber_, calls[i].domain, calls[i].cbid) != CUPTI_SUCCESS) {
      for (std::size_t j = 0; j < i; ++j) {
        cupti_.enable_callback(0, subscriber_, calls[j].domain, calls[j].cbid);
      }
      return false;
    }
  }
  watched_.assign(calls.begin(), calls.end());
  for (const CUpti_ActivityKind kind : api_record_kinds) {
    cupti_.activity_disable(kind);
  }
  return true;
}

void cupti_session::stop_watching() noexcept {
  for (const watched_call& call : watched_) {
    cupti_.enable_callback(0, subscriber_, call.domain, call.cbid);
  }
  watched_.clear();
}

void cupti_session::on_watched_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                    const CUpti_CallbackData& call) noexcept {
  const tag_stack& stack = this_thread_tags;
  if (stack.depth == 0) {
    return; // not made inside kerntime's tags: what it launches stays untagged
  }
  // On the records' clock: the host-gap rule compares a call's end with GPU timestamps.
  std::uint64_t now = 0;
  if (records_use_realtime_) {
    now = realtime_ns();
  } else {
    cupti_.get_timestamp(&now);
  }
  try {
    const std::lock_guard lock(watched_mutex_);
    if (call.callbackSite == CUPTI_API_ENTER) {
      const pushed_tag& tag = stack.tags.at(stack.depth - 1);
      watched_tags_.push_back({tag.kind, tag.id, call.correlationId});
      const CUpti_ActivityKind api_kind = api_kind_of(domain);
      // No thread: a watched call is always tagged, and only untagged work names its thread.
      watched_api_calls_.push_back(
          {call.correlationId, 0, host_wait_of(api_kind, cbid), now, 0, api_kind, cbid});
      return;
    }
    // The exit: the call is among the last few entered (only its nested calls came after).
    for (auto it = watched_api_calls_.rbegin(); it != watched_api_calls_.rend(); ++it) {
      if (it->correlation_id == call.correlationId) {
        it->end = now;
        break;
      }
    }
  } catch (const std::exception& e) {
    const std::lock_guard lock(watched_mutex_);
    watch_error_ = e.what();
  }
}

activity_log cupti_session::with_watched_calls(activity_log log) {
  const std::lock_guard lock(watched_mutex_);
  if (!watch_error_.empty()) {
    throw measurement_invalid("recording a watched CUDA call failed: " + watch_error_);
  }
  log.tags.insert(log.tags.end(), watched_tags_.begin(), watched_tags_.end());
  log.api_calls.insert(log.api_calls.end(), watched_api_calls_.begin(), watched_api_calls_.end());
  return log;
}

void cupti_session::on_buffer_completed(std::uint8_t* buffer, std::size_t valid_size,
                                        bool handed_out_by_kerntime) noexcept {
  try {
    const std::lock_guard lock(mutex_);
    if (!handed_out_by_kerntime) {
      ++foreign_buffers_;
    }
    CUpti_Activity* record = nullptr;
    while (cupti_.activity_get_next_record(buffer, valid_size, &record) == CUPTI_SUCCESS) {
      if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION &&
          !tag_kind_of(
              reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record)->externalKind)) {
        ++foreign_tags_;
      }
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

void cupti_session::detach_quietly(const std::function<void()>& before_release) noexcept {
  if (!attached_) {
    if (active_session.load() == this) {
      active_session.store(nullptr);
    }
    return;
  }
  stop_watching(); // before the counter pass, whose launches carry no tag anyway
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
  if (CUcontext context = current_context();
      context != nullptr &&
      cupti_.activity_get_num_dropped_records(context, 0, &count) == CUPTI_SUCCESS) {
    dropped += count;
  }
  if (before_release) {
    // Activity is off and flushed, CUPTI still initialised: the counter pass's moment.
    try {
      before_release();
    } catch (...) { // NOLINT(bugprone-empty-catch): the caller's hook reports its own failures
    }
  }
  if (!shared_) {
    cupti_.unsubscribe(subscriber_);
    kept_initialised_ = release_cupti(cupti_); // finalized outside a scope (cupti/cupti_scope.hpp)
  }
  // Shared: CUPTI is left as it was found. The subscription is the profiler's, finalizing would
  // tear down its state, and it registers its own buffer callbacks again for its next trace.
  subscriber_ = nullptr;
  attached_ = false;
  active_session.store(nullptr);
  measurement_released(); // a scope that ended meanwhile finalizes now (cupti/cupti_scope.hpp)
  const std::lock_guard lock(mutex_);
  log_.dropped_records += dropped;
}

void cupti_session::check_records() const {
  if (!decode_error_.empty()) {
    throw measurement_invalid("decoding CUPTI records failed: " + decode_error_);
  }
  if (!shared_) {
    return;
  }
  // The tripwires of sharing: torch.profiler tags its work with CUSTOM0/CUSTOM1 ids of its own
  // while it traces, and other tools with other kinds. Either means the guess "idle" was wrong.
  if (foreign_buffers_ > 0) {
    throw measurement_invalid(fmt::format(
        "{} activity buffer(s) that another CUPTI client handed out arrived while CUPTI was {}: "
        "that client was tracing when kerntime attached, so neither its trace nor this "
        "measurement can be trusted; no latency is given",
        foreign_buffers_, describe(cupti_holder::idle_torch_profiler)));
  }
  if (foreign_tags_ > 0) {
    throw measurement_invalid(fmt::format(
        "{} external-correlation record(s) of a kind kerntime never pushes arrived while CUPTI was "
        "{}: another client is tracing in this process, so neither its trace nor this "
        "measurement can be trusted; no latency is given",
        foreign_tags_, describe(cupti_holder::idle_torch_profiler)));
  }
  for (const correlation_tag& tag : log_.tags) {
    if (!pushed_.contains(tag.kind, tag.id)) {
      throw measurement_invalid(fmt::format(
          "a GPU record is tagged CUSTOM{} id {}, which kerntime never pushed, while CUPTI was {}: "
          "torch.profiler (or another client) was tracing, so its trace and this measurement may "
          "each hold the other's records; no latency is given",
          static_cast<int>(external_kind(tag.kind)) -
              static_cast<int>(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0),
          tag.id, describe(cupti_holder::idle_torch_profiler)));
    }
  }
}

activity_log cupti_session::records_so_far() {
  // Outside our lock: the flush calls back into on_buffer_completed.
  cupti_.activity_flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  activity_log copy;
  {
    const std::lock_guard lock(mutex_);
    check_records();
    copy = log_;
  }
  return with_watched_calls(std::move(copy));
}

activity_log cupti_session::detach(const std::function<void()>& before_release) {
  detach_quietly(before_release);
  if (shared_ && sharing_.recheck) {
    // The grant held when CUPTI was attached; it must still hold now that it is detached, or the
    // profiler may have traced (and lost its records to kerntime) in between.
    if (const cupti_holder now = sharing_.recheck(); now != cupti_holder::idle_torch_profiler) {
      throw measurement_invalid(fmt::format(
          "CUPTI was {}, but after the measurement {}: the profiler woke while kerntime timed, so "
          "its trace and this measurement may each hold the other's records; no latency is given",
          describe(cupti_holder::idle_torch_profiler), describe(now)));
    }
  }
  activity_log log;
  {
    const std::lock_guard lock(mutex_);
    check_records();
    log = std::move(log_);
  }
  return with_watched_calls(std::move(log));
}

bool while_no_measurement(const std::function<void()>& fn) noexcept {
  cupti_session* expected = nullptr;
  if (!active_session.compare_exchange_strong(expected, finalizing())) {
    return false;
  }
  try {
    fn();
  } catch (...) { // NOLINT(bugprone-empty-catch): the scope's end reports nothing to anyone
  }
  active_session.store(nullptr);
  return true;
}

} // namespace kerntime::detail
