#pragma once
// Errors are types: the caller can tell "no CUPTI here" from "your kernel faulted" from "the
// numbers cannot be trusted" without matching strings. Each type names its kind once
// (error_kind), and reports, exit codes, the Python module and the pytest plugin use that name.

#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace kerntime {

enum class error_kind {
  invalid_argument,    // the protocol or another argument is unusable; nothing ran
  device_unavailable,  // no usable CUDA device; nothing ran
  cupti_unavailable,   // CUPTI cannot be used and the caller asked for CUPTI only
  benchmark_failed,    // the benchmarked code raised a CUDA error
  measurement_invalid, // the timer's records cannot be trusted
  not_capturable,      // graph mode: the work cannot be captured into a CUDA graph
  no_measurement,      // a benchmark returned without measuring or skipping
  other,               // an exception that is not one of kerntime's
  // Recorded by the supervisor of `kerntime run` (a worker process runs the states):
  cuda_fault, // the state left the CUDA context unusable (a sticky error); a fresh worker went on
  crashed,    // the worker process died during the state (a signal or an exit)
  timed_out,  // the state ran past --state-timeout and its worker was killed
};
// "invalid_argument", ..., "no_measurement"; `other` is "error".
[[nodiscard]] std::string_view to_string(error_kind k);
[[nodiscard]] std::optional<error_kind> parse_error_kind(std::string_view text);

class error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
  [[nodiscard]] virtual error_kind kind() const noexcept { return error_kind::other; }
};

// The kind of any exception: kerntime's errors by their type, anything else `other`.
[[nodiscard]] error_kind error_kind_of(const std::exception& e) noexcept;

// The protocol or another argument is unusable; nothing was run.
class invalid_argument : public error {
public:
  using error::error;
  [[nodiscard]] error_kind kind() const noexcept override { return error_kind::invalid_argument; }
};

// CUPTI cannot be used in this process (not loadable, another subscriber, not supported,
// insufficient privileges, virtualized or MIG device). Raised only with backend = cupti;
// with backend = automatic kerntime falls back to CUDA events instead.
class cupti_unavailable : public error {
public:
  explicit cupti_unavailable(std::string reason)
      : error("CUPTI unavailable: " + reason +
              " (use --backend auto to fall back to CUDA events, or release the other profiler)"),
        reason_(std::move(reason)) {}
  [[nodiscard]] error_kind kind() const noexcept override { return error_kind::cupti_unavailable; }
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

private:
  std::string reason_;
};

// The benchmarked code raised a CUDA error. Never a reason to fall back to another timer.
class benchmark_failed : public error {
public:
  benchmark_failed(int cuda_error, std::string cuda_error_name, std::string where)
      : error("benchmark failed during " + where + ": CUDA error " + cuda_error_name),
        cuda_error_(cuda_error), cuda_error_name_(std::move(cuda_error_name)),
        where_(std::move(where)) {}
  [[nodiscard]] error_kind kind() const noexcept override { return error_kind::benchmark_failed; }
  [[nodiscard]] int cuda_error() const noexcept { return cuda_error_; }
  [[nodiscard]] const std::string& cuda_error_name() const noexcept { return cuda_error_name_; }
  [[nodiscard]] const std::string& where() const noexcept { return where_; }

private:
  int cuda_error_;
  std::string cuda_error_name_;
  std::string where_;
};

// No usable CUDA device (no GPU, no driver, or the device cannot be selected). Nothing was run.
class device_unavailable : public error {
public:
  using error::error;
  [[nodiscard]] error_kind kind() const noexcept override { return error_kind::device_unavailable; }
};

// The timer ran but its records cannot be trusted (dropped records, zero or inverted
// timestamps, untagged work, an iteration without GPU work). kerntime never under-reports.
class measurement_invalid : public error {
public:
  using error::error;
  [[nodiscard]] error_kind kind() const noexcept override {
    return error_kind::measurement_invalid;
  }
};

// Graph mode: the work cannot be captured into a CUDA graph (it synchronizes, allocates, uses the
// legacy stream, ...). `capture_error` is the CUDA error that ended the capture
// ("cudaErrorStreamCaptureUnsupported"; empty when the capture succeeded but held no work), `why`
// says in words what the work did and `fix` what to change. Nothing was timed.
class work_not_capturable : public error {
public:
  work_not_capturable(std::string capture_error, std::string why, std::string fix)
      : error("the work cannot be captured into a CUDA graph: " + why +
              (capture_error.empty() ? std::string() : " (" + capture_error + ")") + "; " + fix),
        capture_error_(std::move(capture_error)), why_(std::move(why)), fix_(std::move(fix)) {}
  [[nodiscard]] error_kind kind() const noexcept override { return error_kind::not_capturable; }
  [[nodiscard]] const std::string& capture_error() const noexcept { return capture_error_; }
  [[nodiscard]] const std::string& why() const noexcept { return why_; }
  [[nodiscard]] const std::string& fix() const noexcept { return fix_; }

private:
  std::string capture_error_;
  std::string why_;
  std::string fix_;
};

} // namespace kerntime
