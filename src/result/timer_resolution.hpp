#pragma once
// The timer's step, measured from what it reported. CUPTI's GPU timestamps step by 32 ns on an
// H200 (converted to the host's nanoseconds, so 32 ± 1 ns between neighbours): a 1.6 µs copy
// reads 1600 or 1632 or 1664 ns, 2 % apart, so no interval may be narrower than the step
// (compare, the stopping rule). Pure, so CPU tests feed it real durations.

#include <vector>

namespace kerntime::detail {

// The spacing of the lattice the durations sit on: values within 3 ns of each other are one
// point of it (the conversion's jitter), and the step is the gaps between neighbouring points
// divided by how many steps each spans (a gap of 64 ns is two steps of 32). 0 when the durations
// make fewer than three points: a timer finer than a few nanoseconds, one value throughout, or
// one value and an outlier (whose distance is no step).
[[nodiscard]] double timer_step_ns(std::vector<double> durations);

} // namespace kerntime::detail
