#pragma once
// One CUPTI attachment around the measured window: subscribe, enable the activity kinds, collect
// and decode buffers, tag API calls with external correlation ids, then detach in one step.

#include <cstdint>
#include <mutex>
#include <string>

#include "cupti/activity_log.hpp"
#include "cupti/attach_outcome.hpp"
#include "cupti/cupti_library.hpp"
#include "cupti/record_decoder.hpp"

namespace kerntime::detail {

class cupti_session {
public:
  // Attaches; `outcome` says whether it worked. Only one session per process at a time: a second
  // one fails as "another subscriber".
  cupti_session(const cupti_library& cupti, attach_outcome& outcome);
  ~cupti_session();
  cupti_session(const cupti_session&) = delete;
  cupti_session& operator=(const cupti_session&) = delete;

  [[nodiscard]] bool attached() const noexcept { return attached_; }

  // Tags every API call made by this thread until pop() with (kind, id).
  void push(tag_kind kind, std::uint64_t id);
  void pop(tag_kind kind);

  // A copy of every record so far, after a forced flush: for looks at the samples while timing
  // goes on (the stopping rule). Only records of work that has finished are complete.
  [[nodiscard]] activity_log records_so_far();

  // Disable, flush, unsubscribe, finalize — with no launch in between. Returns the decoded log.
  // Idempotent; the destructor detaches if the caller did not (e.g. on an exception).
  activity_log detach();

  // Called from CUPTI's buffer-completed callback thread.
  void on_buffer_completed(std::uint8_t* buffer, std::size_t valid_size) noexcept;

private:
  void detach_quietly() noexcept;

  const cupti_library& cupti_;
  CUpti_SubscriberHandle subscriber_ = nullptr;
  bool attached_ = false;
  std::mutex mutex_; // guards log_, decoder_ and decode_error_
  activity_log log_;
  record_decoder decoder_{log_};
  std::string decode_error_;
};

} // namespace kerntime::detail
