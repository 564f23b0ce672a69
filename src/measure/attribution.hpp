#pragma once
// Attribution: which GPU record belongs to which iteration, and what each iteration cost.
// A pure function over decoded records; the runner says which iteration ids it launched.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "cupti/activity_log.hpp"
#include "kerntime/result.hpp"

namespace kerntime::detail {

// The iteration ids the runner pushed as CUSTOM0 tags: trial t measured the ids
// trial_first_ids[t] .. trial_first_ids[t] + repeats - 1. Ids in `ignored` were launched too
// (the discarded first iteration, re-run trials) and are attributed but not counted.
struct iteration_layout {
  std::vector<std::uint64_t> trial_first_ids;
  int repeats = 0;
  std::set<std::uint64_t> ignored;
};

struct attribution {
  std::vector<std::vector<iteration_sample>> trials; // [trial][iteration]
  std::vector<kernel_summary> kernels;               // sorted by mean time, largest first
  std::vector<trace_record> trace;                   // the first trial's records
  std::vector<std::string> warnings;
  std::size_t flush_records = 0;
  double flush_median_ns = 0; // the flush's GPU time per measured iteration; 0 without a flush
};

// Throws measurement_invalid when the records cannot give an exact answer: dropped records,
// zero or inverted timestamps, GPU work no iteration launched, an iteration with no GPU work.
[[nodiscard]] attribution attribute(const activity_log& log, const iteration_layout& layout);

} // namespace kerntime::detail
