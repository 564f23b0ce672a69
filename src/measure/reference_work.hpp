#pragma once
// kerntime's own launch-bound reference, measured by both workers of every round of `kerntime ab`
// (docs/ab.md, "The reference"): 16 launches of a one-warp kernel that bumps a counter, the shape
// of the suite's tiny_kernel/kernels=16, whose process modes on an H100 moved CUB's 64 Ki sum and
// sort with correlation +0.97 and +0.99. It is the library's code, so two workers built on the same
// kerntime run the same kernels, and its true B/A is exactly 1.

#include <string_view>

#include "kerntime/protocol.hpp"
#include "kerntime/result.hpp"

namespace kerntime::detail {

inline constexpr int reference_launches = 16;
inline constexpr std::string_view reference_benchmark = "kerntime_reference";
inline constexpr std::string_view reference_state_name = "kerntime_reference/kernels=16";
// Names the reference's code; a worker reports it when it is ready, and kerntime ab adjusts by
// the reference only where both sides report the same. Change it whenever the kernel or its
// launches change.
inline constexpr std::string_view reference_identity =
    "kerntime_reference 1: 16 launches of one warp bumping a counter";

// One preparation of the reference under `p`: its counters allocated (one per input set), then
// measured as a state is. Throws what measure() throws.
[[nodiscard]] measurement_result measure_reference(const protocol& p);

} // namespace kerntime::detail
