#pragma once
// Attribution: which GPU record belongs to which iteration, and what each iteration cost.
// A pure function over decoded records; the runner says which iteration ids it launched.

#include <cstdint>
#include <set>
#include <vector>

#include "cupti/activity_log.hpp"
#include "result/timed_trials.hpp"

namespace kerntime::detail {

// The iteration ids the runner pushed as CUSTOM0 tags: trial t measured the ids
// trial_first_ids[t] .. trial_first_ids[t] + repeats - 1. Ids in `ignored` were launched too
// (the discarded first iteration, re-run trials) and are attributed but not counted.
struct iteration_layout {
  std::vector<std::uint64_t> trial_first_ids;
  int repeats = 0;
  std::set<std::uint64_t> ignored;
};

// Throws measurement_invalid when the records cannot give an exact answer: dropped records,
// zero or inverted timestamps, GPU work no iteration launched, an iteration with no GPU work.
[[nodiscard]] timed_trials attribute(const activity_log& log, const iteration_layout& layout);

} // namespace kerntime::detail
