#pragma once
// One CUPTI attachment around the measured window: subscribe, enable the activity kinds, collect
// and decode buffers, tag API calls with external correlation ids, then detach in one step.
// Beside an idle torch.profiler, when the caller grants it, the same without the subscription:
// the Activity API alone, leaving CUPTI as it was found (docs/torch-profiler.md).

#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "cupti/activity_log.hpp"
#include "cupti/attach_outcome.hpp"
#include "cupti/cupti_library.hpp"
#include "cupti/cupti_sharing.hpp"
#include "cupti/pushed_tags.hpp"
#include "cupti/record_decoder.hpp"
#include "cupti/watched_calls.hpp"

namespace kerntime::detail {

class cupti_session {
public:
  // Attaches; `outcome` says whether it worked. Only one session per process at a time: a second
  // one fails as "another subscriber". When another client holds the subscription, `sharing`
  // says who: only an idle torch.profiler is shared with.
  cupti_session(const cupti_library& cupti, attach_outcome& outcome, cupti_sharing sharing = {});
  ~cupti_session();
  cupti_session(const cupti_session&) = delete;
  cupti_session& operator=(const cupti_session&) = delete;

  [[nodiscard]] bool attached() const noexcept { return attached_; }
  // Timing through the Activity API alone, beside an idle torch.profiler.
  [[nodiscard]] bool shared() const noexcept { return shared_; }

  // Tags every API call made by this thread until pop() with (kind, id). Tags nest (last in,
  // first out).
  void push(tag_kind kind, std::uint64_t id);
  void pop(tag_kind kind);

  // From here on, the API calls are seen through callbacks on `calls` alone, not as activity
  // records of every runtime and driver call with an external-correlation record each
  // (cupti/watched_calls.hpp); the GPU records are still CUPTI's activity records. False (and
  // nothing changed) while CUPTI is shared (there is no subscription to call back), when the
  // loaded CUPTI lacks the callback entry points, or when one cannot be enabled.
  bool watch_calls(std::span<const watched_call> calls);

  // Called from inside a watched call, on the thread that made it.
  void on_watched_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                       const CUpti_CallbackData& call) noexcept;

  // A copy of every record so far, after a forced flush: for looks at the samples while timing
  // goes on (the stopping rule). Only records of work that has finished are complete.
  [[nodiscard]] activity_log records_so_far();

  // Whether detach left CUPTI initialised for the scope it ran in (cupti/cupti_scope.hpp).
  [[nodiscard]] bool kept_initialised() const noexcept { return kept_initialised_; }

  // Disable, flush, unsubscribe, finalize (inside a scope: no finalize, cupti/cupti_scope.hpp) —
  // with no launch in between but `before_release`, run once activity is disabled and flushed and
  // before CUPTI is released (the counter pass: the
  // range profiler needs an initialised CUPTI, and its replayed kernels must leave no activity
  // record). Its exceptions are swallowed: it reports its own failures. Returns the decoded log.
  // Shared: disable and flush only, then ask the caller again whether the profiler is idle.
  // Idempotent; the destructor detaches if the caller did not (e.g. on an exception).
  activity_log detach(const std::function<void()>& before_release = {});

  // Called from CUPTI's buffer-completed callback thread. `handed_out_by_kerntime` is false for
  // a buffer another CUPTI client requested (possible only while CUPTI is shared).
  void on_buffer_completed(std::uint8_t* buffer, std::size_t valid_size,
                           bool handed_out_by_kerntime) noexcept;

private:
  void detach_quietly(const std::function<void()>& before_release = {}) noexcept;
  void stop_watching() noexcept;
  // The log with the watched calls' tags and calls added.
  [[nodiscard]] activity_log with_watched_calls(activity_log log);
  // Throws when the records were not all decoded, or (shared) show another client tracing.
  void check_records() const; // under mutex_

  const cupti_library& cupti_;
  cupti_sharing sharing_;
  CUpti_SubscriberHandle subscriber_ = nullptr;
  bool attached_ = false;
  bool shared_ = false;
  bool kept_initialised_ = false;
  std::vector<watched_call> watched_; // empty: every API call is an activity record
  bool records_use_realtime_ = false; // CUPTI stamps records with kerntime's realtime_ns
  pushed_tags pushed_;                // the measuring thread's pushes; read by it alone
  std::mutex mutex_; // guards log_, decoder_, decode_error_, foreign_tags_, foreign_buffers_
  activity_log log_;
  record_decoder decoder_{log_};
  std::string decode_error_;
  std::size_t foreign_tags_ = 0;    // external-correlation records of kinds kerntime never pushes
  std::size_t foreign_buffers_ = 0; // buffers another client requested
  // What the watched calls saw. Its own lock: the buffer thread holds mutex_ while it decodes a
  // whole buffer, and a launch must not wait for that.
  std::mutex watched_mutex_; // guards watched_tags_, watched_api_calls_, watch_error_
  std::vector<correlation_tag> watched_tags_;
  std::vector<api_call> watched_api_calls_;
  std::string watch_error_;
};

// For a scope's end (cupti/cupti_scope.hpp): runs `fn` while no measurement holds CUPTI, holding
// the place a measurement attaches through so that none does meanwhile (one that tries waits).
// False, `fn` not run, when a measurement holds CUPTI now.
bool while_no_measurement(const std::function<void()>& fn) noexcept;

} // namespace kerntime::detail
