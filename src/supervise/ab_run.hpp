#pragma once
// The interleaved A/B run of `kerntime ab` (docs/ab.md): one worker process of program A and one
// of program B per device, the same GPU, both serving one state at a time. The supervisor asks
// them for one trial each in the balanced order A B B A; every trial is a fresh preparation of
// the state (inputs, warm-up, CUPTI attached, one trial), so where allocations land varies from
// trial to trial instead of being a constant offset of a side. After each block of four it
// reads the confidence sequence and stops the state as soon as it decides (from --min-pairs on),
// or at --max-pairs or --max-time with the interval reached. Both workers are replaced every
// --pairs-per-worker pairs, so each state sees several process pairs. A trial that crashes, faults
// or hangs fails the state for that side, its worker is replaced, and the run goes on with the next
// state.

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "compare/ab_comparison.hpp"
#include "kerntime/compare.hpp"
#include "kerntime/report.hpp"
#include "supervise/supervisor.hpp"
#include "supervise/worker_process.hpp"

namespace kerntime::detail {

// A state both programs have, with its plan index in each.
struct ab_state {
  std::string name;
  std::string benchmark;
  std::size_t a_index = 0;
  std::size_t b_index = 0;
};

// One device: the commands that start A's and B's workers on it.
struct ab_pair_slot {
  worker_launch a;
  worker_launch b;
  std::string label; // "GPU 1", for messages
};

struct ab_run_settings {
  std::vector<ab_pair_slot> pairs; // several: states are shared out, one pair per device
  ab_options options;
  std::size_t max_pairs = 100; // per state: the most A–B pairs of trials (two per block)
  // Per state: no decision before this many pairs. On the H200 an A/A run that could decide
  // after 4 blocks called 7 % of the suite's states slower or faster: a few preparations of a
  // small memory-bound state are not enough to know its spread (docs/ab.md).
  std::size_t min_pairs = 20;
  // Both workers are replaced after this many pairs of a state, so the blocks of one process
  // pair, which are not independent of each other, cannot decide a state alone. On the H200 an
  // A/A run of the suite replacing every 40 pairs called 3 of 75 states slower or faster, every
  // 10 pairs none of 50, at the cost of time and more inconclusive states (docs/ab.md). 0: never.
  std::size_t pairs_per_worker = 10;
  double max_time_s = 60;           // per state: no block starts after this much time
  double trial_timeout_s = 600;     // a trial that takes longer is a hang: its worker is killed
  double start_timeout_s = 120;     // a worker not ready by then is killed
  std::ostream* progress = nullptr; // a line per decided state (a terminal)
  std::ostream* events = nullptr;   // faults and restarts (always)
};

// What became of one state.
struct ab_state_outcome {
  ab_state state;
  std::vector<benchmark_run> a; // each preparation's record, in the order it ran
  std::vector<benchmark_run> b;
  std::optional<state_comparison> comparison; // both sides measured at least one block
  // Set when a side failed or skipped the state: "A: crashed: signal 11 (SIGSEGV)".
  std::string failure;
  std::optional<error_kind> failure_kind;
  std::optional<ab_side> failed_side; // absent with a failure: neither side ran it
  bool skipped = false;               // a side skipped it (the benchmark said so): not a failure
  std::optional<run_device> device;
  double seconds = 0;
};

// Runs every state and returns the outcomes in the order of `states`.
[[nodiscard]] std::vector<ab_state_outcome> run_ab(const std::vector<ab_state>& states,
                                                   const ab_run_settings& settings,
                                                   supervision_summary* summary = nullptr);

} // namespace kerntime::detail
