#pragma once
// The per-device resources every measurement needs, kept for a scope's life
// (cupti/cupti_scope.hpp): the L2 flush buffer (4 x L2, ~0.4 ms to allocate and zero) and the
// blocking kernel (two pinned words and a device synchronise, ~1 ms). Inside a scope a measurement
// borrows the current device's (and context's) and hands it back at its end; a measurement on
// another thread meanwhile gets one made for it, which the scope keeps too; the scope's end frees
// them, each with its device current. Outside a scope a measurement makes its own and frees it.

#include <cstddef>
#include <functional>
#include <memory>

#include <cuda_runtime_api.h>

#include "flush/l2_flush.hpp"
#include "kerntime/cuda.hpp"
#include "measure/blocking_kernel.hpp"

namespace kerntime::detail {

template <typename T> using borrowed = std::unique_ptr<T, std::function<void(T*)>>;

// A flush of `bytes` (0: the default multiple of L2) on the current device.
[[nodiscard]] borrowed<l2_flush> borrow_flush(std::size_t bytes);
// A blocking kernel on the current device.
[[nodiscard]] borrowed<blocking_kernel> borrow_blocker();

// Frees the flush buffers the current scope keeps and no measurement holds, so that the next
// measurement makes its own, wherever the allocator puts it then (kerntime ab's workers: each
// preparation's flush buffer lands somewhere new, as its inputs do). Outside a scope: nothing.
void release_kept_flushes();

// One stream for every measurement made without a stream of its own, from now until it is set
// to nullptr (the caller owns the stream). kerntime ab's workers, with the reference on: a
// stream's launches run in one of two launch-gap modes for its life (on an H100 `tiny_kernel` with
// 16 launches read 35.2 or 37.5 µs), so the states and the reference share the one the worker's
// stream drew (docs/ab.md, "The reference"). nullptr (the default): each measurement makes its own.
void use_one_stream(cudaStream_t stream);
[[nodiscard]] cudaStream_t one_stream();

// A stream of its own, used by every measurement (use_one_stream) while this lives.
class one_stream_scope {
public:
  one_stream_scope();
  ~one_stream_scope();
  one_stream_scope(const one_stream_scope&) = delete;
  one_stream_scope& operator=(const one_stream_scope&) = delete;
  one_stream_scope(one_stream_scope&&) = delete;
  one_stream_scope& operator=(one_stream_scope&&) = delete;
  [[nodiscard]] cudaStream_t get() const noexcept { return stream_.get(); }

private:
  cuda_stream stream_;
};

// How many resources the current scope keeps now (borrowed or not), for tests.
[[nodiscard]] std::size_t kept_resource_count();

} // namespace kerntime::detail
