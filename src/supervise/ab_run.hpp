#pragma once
// The interleaved A/B run of `kerntime ab` (docs/ab.md). The run goes in rounds; a round starts
// a fresh process pair per device (one worker of program A and one of B, the same GPU) and asks
// it for --pairs-per-round pairs of trials of every state still undecided, in the balanced order
// A B B A. Every trial is a fresh preparation of the state (inputs, warm-up, CUPTI attached, one
// trial), so where allocations land varies from trial to trial. A process pair carries an offset
// of its own, so each round gives each state one observation, the mean log-ratio of its blocks
// in that round; the confidence sequence over those decides the state (from --min-rounds on), or
// it ends at --max-pairs or --max-time with the interval reached. A trial that crashes, faults or
// hangs fails the state for that side, its worker is replaced, and the round goes on.

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

// No decision before this many rounds (process pairs) of a state. The sequence is valid from 3,
// but a few process pairs can agree by chance where their offsets come in a few discrete modes:
// on the H200 a 1 µs spin's worker process read three timer steps (6 %) high one time in six,
// and an A/A run read A's first four all high and B's all low, so decided `faster` at round 4.
// From 6 on, such a run takes six agreeing pairs (docs/ab.md, "The minimum of rounds").
inline constexpr std::size_t default_min_rounds = 6;

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
  // Per state, the pairs of trials (two per block of A B B A) each round's process pair runs.
  // One block per round gives the most observations per trial (docs/ab.md, simulated).
  std::size_t pairs_per_round = 2;
  // Per state, the most pairs of trials a round may run: a state whose blocks spread on their own
  // (their preparations, not the process pair) runs more blocks a round where that costs less than
  // the rounds it saves (compare/round_blocks.hpp); pairs_per_round: always that many.
  std::size_t most_pairs_per_round = 8;
  // Per state: no decision before this many rounds' observations (default_min_rounds).
  std::size_t min_rounds = default_min_rounds;
  // The same process pair for every round: then every block is an observation, which the
  // process pair's offset makes too confident (docs/ab.md); for seeing that offset, not deciding.
  bool keep_workers = false;
  // Each round's pair starts the next round's pair once its reference is measured, so that the
  // next round need not wait for a CUDA context; those starts then overlap this round's trials,
  // which the driver slows by about the wait saved (H100: 0.2 s a round each way; docs/ab.md,
  // "Cheaper rounds"). Off: no start or exit overlaps a trial.
  bool start_ahead = false;
  // Trials per side of kerntime's own reference (measure/reference_work.hpp) each round's process
  // pair runs before its states, in blocks of A B B A; each state's observation in that round is
  // adjusted by the reference's log-ratio (compare/reference_adjustment.hpp). Only where both
  // sides' workers report the same reference; 0, or with keep_workers: none.
  std::size_t reference_trials = 4;
  // From its 10th round, a state whose rounds spread so widely that the threshold could not
  // settle within the rounds --max-pairs allows goes on at the narrowest band up to 5 × the
  // threshold that its spread could settle within a third of those left; one that no band could
  // settle within twice them stops early, inconclusive (docs/ab.md). Off: every undecided state
  // runs to --max-pairs or --max-time at the threshold.
  bool give_up_early = true;
  double max_time_s = 60;           // per state: no round starts after its trials took this long
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
  std::size_t rounds = 0;                 // the rounds it ran in
  std::size_t next_blocks = 0;            // blocks its next round runs; 0: pairs_per_round's
  std::vector<std::size_t> process_pairs; // the blocks each round ran (fresh pairs only)
  // Per round (as process_pairs), the reference's log-ratio in that round's process pair; none
  // where it failed or the state's trials ran in a worker started after it. Empty: no reference.
  std::vector<std::optional<double>> reference;
  std::optional<state_comparison> comparison; // both sides measured at least one block
  // Set when a side failed or skipped the state: "A: crashed: signal 11 (SIGSEGV)".
  std::string failure;
  std::optional<error_kind> failure_kind;
  std::optional<ab_side> failed_side; // absent with a failure: neither side ran it
  bool skipped = false;               // a side skipped it (the benchmark said so): not a failure
  std::optional<run_device> device;
  // Set when the state's spread put the threshold out of reach and it went on at a wider band
  // (ab_options::widest_band): that band, and why, as its comparison's band_reason says.
  std::optional<double> band;
  std::string band_reason;
  double seconds = 0;          // the state's own trials, over all its rounds
  double finished_after_s = 0; // since the run began: when the state was decided or given up
};

// What became of the reference over the run.
struct ab_reference_summary {
  bool asked = false;             // settings asked for it
  std::string off_reason;         // why no round measured it, where it was asked for
  std::vector<double> log_ratios; // each round's B/A of the reference, as measured
  int failed_rounds = 0;          // rounds whose reference trials failed (their states unadjusted)
  double seconds = 0;             // the reference's trials, over all rounds
};

// Runs every state and returns the outcomes in the order of `states`.
[[nodiscard]] std::vector<ab_state_outcome> run_ab(const std::vector<ab_state>& states,
                                                   const ab_run_settings& settings,
                                                   supervision_summary* summary = nullptr,
                                                   ab_reference_summary* reference = nullptr);

} // namespace kerntime::detail
