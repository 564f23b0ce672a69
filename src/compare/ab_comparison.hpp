#pragma once
// The verdict of an interleaved A/B run on one state (`kerntime ab`, docs/ab.md): from each
// side's preparations, one trial each, in the balanced order they ran, the confidence sequence of
// confidence_sequence.hpp decides; the result is a state_comparison (A the base, B the new side),
// so every output of `kerntime compare` shows it.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compare/confidence_sequence.hpp"
#include "compare/reference_adjustment.hpp"
#include "compare/round_blocks.hpp"
#include "kerntime/compare.hpp"
#include "kerntime/result.hpp"

namespace kerntime::detail {

// How far past the rounds a run allows ab_reading::projected_blocks looks.
inline constexpr std::size_t projection_limit_factor = 10;

struct ab_options {
  double threshold = default_band; // B/A within ±threshold is "same"
  double alpha = default_alpha;    // the chance the interval ever misses the ratio
  // No verdict but inconclusive from fewer observations (kerntime ab's --min-rounds).
  std::size_t min_observations = 0;
  // A state whose spread would need more observations than this even at the most favourable
  // ratio stops early, inconclusive (sequential_ratio::out_of_reach); 0: never. kerntime ab
  // passes twice the rounds --max-pairs allows.
  std::size_t give_up_beyond = 0;
  // The spread floor: `same` is judged against this band where it is wider than the threshold
  // (`slower` and `faster` stay at the threshold); 0: the threshold.
  double same_band = 0;
  // Where `same` at the current band is out of reach within `widen_within` observations (not
  // twice them: a wider band loses precision, not a verdict), the band to go on at: the
  // narrowest in half steps of the threshold up to `widest_band` that the spread could settle
  // (sequential_ratio::reachable_band); 0: never wider than the threshold. A state is given up
  // only when not even `widest_band` could settle `same` within give_up_beyond. kerntime ab
  // passes 5 × the threshold and the rounds --max-pairs allows.
  double widest_band = 0;
  std::size_t widen_within = 0;
  // Why `same` is judged at a wider band, for the comparison's band_reason; empty: it is not.
  std::string band_reason;
  // With fresh process pairs: the most blocks a round may run; above 1, an undecided reading
  // projects what 1, 2, 4, ... up to it would take (ab_reading::projected_blocks,
  // compare/round_blocks).
  std::size_t most_blocks = 1;
  // The blocks the state's rounds run now (kerntime ab's choice); above 1, the spread floor reads
  // the rounds to come at that spread, not at the rounds' so far (compare/round_blocks).
  std::size_t next_blocks = 1;
};

// Throws kerntime::invalid_argument, saying what to pass instead, when the threshold or alpha is
// not in (0, 1).
void check_ab_options(const ab_options& options);

// One state's preparations per side, each in the order it ran; block k ran A's 2k-th, B's 2k-th
// and (2k+1)-th, then A's (2k+1)-th (side_of_trial, balanced). A block not yet complete is not
// read.
struct ab_trials {
  std::vector<const measurement_result*> a;
  std::vector<const measurement_result*> b;
  // The blocks each process pair ran, in order, when the blocks came from several (`kerntime
  // ab`): then each pair's mean log-ratio is one observation. Empty: every block is one (one
  // process whose every trial is a fresh preparation, kerntime.ab in Python).
  std::vector<std::size_t> process_pairs;
  // Per process pair (as process_pairs), the log-ratio B/A of kerntime's own reference measured
  // in it, none where it was not; empty: no reference ran. Each pair's observation is then
  // adjusted by it (compare/reference_adjustment.hpp).
  std::vector<std::optional<double>> reference;
};

// The time of one preparation that the A/B decision reads: the clipped mean of its headline
// metric's readings (kerntime::clipped_mean, with its timer's step), finer than the timer's step
// where the median is not (docs/ab.md); the median when it holds no readings.
[[nodiscard]] double preparation_time_ns(const measurement_result& r);

// The finest ratio these preparations can resolve, as a fraction of their typical time: the
// timer's step over that time, divided by the square root of the fewest readings a preparation
// averages; the step itself where some preparation's readings all fall on one value (no
// evidence that starts fall anywhere between the timer's ticks). 0 when no step is known.
[[nodiscard]] double resolution_fraction(std::span<const measurement_result* const> preparations);

// The sequence over the observations (complete blocks, or complete process pairs' means), in
// time (each preparation's time, above) and, when every trial measured its on-GPU SM clock, in
// cycles (that time × that clock).
struct ab_reading {
  std::size_t blocks = 0;                        // complete blocks of A B B A read
  ab_interval time;                              // time.blocks: the observations
  ab_decision decision = ab_decision::undecided; // of `time` against the band, from the minimum
  std::optional<ab_interval> cycles;
  double timer_step_fraction = 0; // the coarser side's step over the median of all trials
  // resolution_fraction() of the blocks read: the narrowest half-width the interval may take.
  double resolution_fraction = 0;
  // While undecided: how many observations in all would decide if the ratio and the spread
  // stayed as they are (sequential_ratio::observations_to_decide).
  std::optional<std::size_t> observations_needed;
  // From the minimum on, while undecided: no verdict can come from more observations
  // (sequential_ratio::no_verdict_reachable); the run stops the state as inconclusive.
  bool no_verdict_reachable = false;
  // From the minimum on, while undecided: the spread puts every verdict beyond
  // ab_options::give_up_beyond observations; the run stops the state as inconclusive.
  bool out_of_reach = false;
  // While undecided, where `same` is out of reach within ab_options::widen_within: the band
  // for `same` the state may go on at instead (ab_options::widest_band).
  std::optional<double> reachable_band;
  // The process pairs' observations in time (absent where every block is one), adjusted where
  // a reference ran in them (`referenced`, ab_trials::reference), with their spread before and
  // after.
  std::optional<reference_adjusted> units;
  bool referenced = false;
  // While undecided, by process pairs, with ab_options::most_blocks above 1 and the blocks' own
  // spread known: the rounds each count of blocks per round from here on would take in all
  // (project_blocks, counted in the state's rounds, up to projection_limit_factor times
  // ab_options::widen_within).
  std::vector<blocks_projection> projected_blocks;
  // By process pairs, with ab_options::most_blocks above 1: the rounds' spread split into a
  // block's own and the process pairs' beyond it (compare/round_blocks), over the rounds the
  // deciding sequence read (what the block choice and the floor read); `spread_adjusted`: those
  // rounds as adjusted by the reference.
  std::optional<round_spread> spread;
  bool spread_adjusted = false;
};
// Throws kerntime::invalid_argument for a preparation whose median is not a positive time.
[[nodiscard]] ab_reading read_ab(const ab_trials& trials, const ab_options& options);

// How the run of a state ended, for the verdict and its note.
enum class ab_end {
  decided,   // the interval decided: slower, faster or same
  max_pairs, // --max-pairs reached first: inconclusive, with the interval reached
  max_time,  // --max-time reached first
  // Stopped early: the timer's step keeps `same` out of reach, and the interval already lies
  // inside the band, so no change beyond it can be shown either (ab_reading's flag).
  no_verdict_reachable,
  // Stopped early: at the spread its observations show, no verdict could come within twice the
  // observations the run allows, even at the most favourable ratio (ab_reading's flag).
  out_of_reach,
};

// The state's comparison: ratio B/A with the confidence sequence's interval, the verdict, the
// per-kernel diff over the preparations, both sides' clocks and the ratio in cycles (a
// disagreement with time is a clock mismatch, named in the notes and judged by the rule), the
// timer's step, and notes on throttled trials.
[[nodiscard]] state_comparison compare_ab_state(const std::string& name, const ab_trials& trials,
                                                const ab_options& options, ab_end end);

} // namespace kerntime::detail
