#pragma once
// The calling thread's current CUDA context, asked of (and set through) the driver by the runtime's
// entry-point query: kerntime links the runtime statically and never links libcuda, which CUPTI
// loads itself.

#include <cuda.h>

namespace kerntime::detail {

// Null when there is none or the driver cannot be asked.
[[nodiscard]] CUcontext current_context() noexcept;
// Makes `context` (null: none) the calling thread's current one; false when the driver refuses.
bool make_current(CUcontext context) noexcept;

} // namespace kerntime::detail
