#pragma once
// The facts of the current CUDA device that every result carries, read in one place.

#include "kerntime/result.hpp"

namespace kerntime::detail {

// Throws device_unavailable when no CUDA device can be used or this build has no code for it
// (docs/building.md), benchmark_failed when the device's properties cannot be read.
[[nodiscard]] device_info read_current_device();

} // namespace kerntime::detail
