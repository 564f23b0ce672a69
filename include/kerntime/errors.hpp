#pragma once
// Errors are types: the caller can tell "no CUPTI here" from "your kernel faulted" from "the
// numbers cannot be trusted" without matching strings.

#include <stdexcept>
#include <string>
#include <utility>

namespace kerntime {

class error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// The protocol or another argument is unusable; nothing was run.
class invalid_argument : public error {
public:
  using error::error;
};

// CUPTI cannot be used in this process (not loadable, another subscriber, not supported,
// insufficient privileges, virtualized or MIG device). Raised only with backend = cupti;
// with backend = automatic kerntime falls back to CUDA events instead.
class cupti_unavailable : public error {
public:
  cupti_unavailable(std::string reason)
      : error("CUPTI unavailable: " + reason +
              " (use --backend auto to fall back to CUDA events, or release the other profiler)"),
        reason_(std::move(reason)) {}
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
};

// The timer ran but its records cannot be trusted (dropped records, zero or inverted
// timestamps, untagged work, an iteration without GPU work). kerntime never under-reports.
class measurement_invalid : public error {
public:
  using error::error;
};

} // namespace kerntime
