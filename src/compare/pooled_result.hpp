#pragma once
// A side of an A/B run prepares each state afresh for every trial (docs/ab.md: where a process's
// buffers land moves small states by percent, so the preparation is the unit to replicate). Its
// result set holds one result per state all the same, pooled from those preparations, so
// `kerntime compare`, `report` and `merge` read it like any run's.

#include <optional>
#include <vector>

#include "kerntime/result.hpp"

namespace kerntime::detail {

// The trials of every preparation, in the order they ran, summarised as one measurement: the
// statistics over every iteration, a trial per preparation's trial, each kernel's mean over the
// preparations, the first preparation's trace and device, the host phases and wall time summed,
// each warning once; closed by summarise() like any measurement. Energy: each preparation's NVML
// window is its own, so the pool's is their sum where every one read it (at least 2 s of trials
// each), else unavailable, saying so.
// It counts the preparations and gives their spread (measurement_result::preparation_spread).
// Throws kerntime::invalid_argument when given no preparation.
[[nodiscard]] measurement_result
pool_preparations(const std::vector<const measurement_result*>& preparations);

// The standard deviation of the logs of preparations' times (sample, n - 1): a fraction of the
// time. Empty for fewer than 2 times, or a time that is not positive and finite.
[[nodiscard]] std::optional<double> spread_of_preparations(const std::vector<double>& times_ns);

} // namespace kerntime::detail
