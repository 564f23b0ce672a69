#include "compare/ab_comparison.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "compare/side.hpp"
#include "kerntime/errors.hpp"
#include "kerntime/statistics.hpp"

namespace kerntime::detail {
namespace {

// A preparation's on-GPU SM clock: the median over its trials that measured it.
std::optional<double> clock_of(const measurement_result& r) {
  std::vector<double> clocks;
  for (const auto& trial : r.trials) {
    if (trial.telemetry.measured_sm_clock_mhz) {
      clocks.push_back(*trial.telemetry.measured_sm_clock_mhz);
    }
  }
  return clocks.empty() ? std::nullopt : std::optional(median(std::move(clocks)));
}

std::size_t complete_blocks(const ab_trials& t) {
  return std::min(t.a.size(), t.b.size()) / 2;
}

verdict verdict_of_decision(ab_decision d) {
  switch (d) {
  case ab_decision::slower:
    return verdict::slower;
  case ab_decision::faster:
    return verdict::faster;
  case ab_decision::same:
    return verdict::same;
  case ab_decision::undecided:
  case ab_decision::inconclusive:
    break;
  }
  return verdict::inconclusive;
}

std::vector<double> times_of(std::span<const measurement_result* const> runs, std::size_t count) {
  std::vector<double> times;
  for (std::size_t i = 0; i < count && i < runs.size(); ++i) {
    times.push_back(preparation_time_ns(*runs[i]));
  }
  return times;
}

std::vector<double> headline_readings(const measurement_result& r) {
  std::vector<double> readings;
  for (const auto& trial : r.trials) {
    for (const auto& s : trial.iterations) {
      readings.push_back(r.protocol_used.metric == headline_metric::span ? s.span_ns : s.busy_ns);
    }
  }
  return readings;
}

// The timer's step over the preparations' median time, and the resolution their times have:
// that over the square root of the fewest readings a preparation averages, or the step itself
// where some preparation's readings all fall on one value.
struct timer_floor {
  double step_fraction = 0;
  double resolution_fraction = 0;
};

timer_floor floor_of(std::span<const measurement_result* const> preparations,
                     std::vector<double> times) {
  double step = 0;
  std::size_t fewest = 0;
  bool spread = true;
  for (const auto* r : preparations) {
    step = std::max(step, r->timer_resolution_ns);
    const auto readings = headline_readings(*r);
    fewest = r == preparations.front() ? readings.size() : std::min(fewest, readings.size());
    spread = spread && std::any_of(readings.begin(), readings.end(),
                                   [&](double v) { return v != readings.front(); });
  }
  if (times.empty()) {
    return {};
  }
  const double fraction = step / median(std::move(times));
  return {.step_fraction = fraction,
          .resolution_fraction =
              spread && fewest > 1 ? fraction / std::sqrt(static_cast<double>(fewest)) : fraction};
}

// The band `same` is judged at: the threshold, or the wider band of the spread floor.
double same_band_of(const ab_options& options) {
  return std::max(options.threshold, options.same_band);
}

// Where a state's rounds ran more blocks than its first (kerntime ab's chosen blocks): how many,
// and the split of its rounds' spread that made them pay, as the choice read it.
std::optional<std::string> blocks_note(const ab_trials& trials, const ab_reading& reading) {
  const auto& rounds = trials.process_pairs;
  if (!ran_more_blocks(rounds)) {
    return std::nullopt;
  }
  const auto [fewest, most] = std::minmax_element(rounds.begin(), rounds.end());
  const auto& spread = reading.spread;
  return fmt::format(
      "its rounds ran {} to {} blocks (of {} in all): {}", *fewest, *most, reading.blocks,
      spread ? fmt::format("a block's own preparations spread by {:.2f} % (which more blocks in a "
                           "round divide), the process pairs beyond that by {:.2f} % (which they "
                           "do not), over the rounds the choice read{}",
                           100 * std::sqrt(spread->within), 100 * std::sqrt(spread->between),
                           reading.spread_adjusted ? ", as adjusted by the reference" : "")
             : "a block's own preparations spread, which more blocks in a round divide");
}

} // namespace

double preparation_time_ns(const measurement_result& r) {
  auto readings = headline_readings(r);
  return readings.empty() ? r.latency_ns : clipped_mean(readings, r.timer_resolution_ns);
}

double resolution_fraction(std::span<const measurement_result* const> preparations) {
  return floor_of(preparations, times_of(preparations, preparations.size())).resolution_fraction;
}

void check_ab_options(const ab_options& options) {
  compare_options checked;
  checked.threshold = options.threshold;
  checked.alpha = options.alpha;
  check_compare_options(checked);
}

ab_reading read_ab(const ab_trials& trials, const ab_options& options) {
  const std::size_t blocks = complete_blocks(trials);
  ab_reading reading;
  reading.blocks = blocks;
  const auto a = times_of(trials.a, 2 * blocks);
  const auto b = times_of(trials.b, 2 * blocks);
  std::vector<double> all = a;
  all.insert(all.end(), b.begin(), b.end());
  std::vector<const measurement_result*> read;
  for (std::size_t i = 0; i < 2 * blocks; ++i) {
    read.insert(read.end(), {trials.a[i], trials.b[i]});
  }
  const bool positive =
      std::all_of(all.begin(), all.end(), [](double v) { return std::isfinite(v) && v > 0; });
  if (!positive) {
    throw invalid_argument("an A/B preparation's time is not a positive time; each side's "
                           "trial must measure work");
  }
  const timer_floor floor = floor_of(read, all);
  reading.timer_step_fraction = floor.step_fraction;
  reading.resolution_fraction = floor.resolution_fraction;
  std::vector<double> time_blocks;
  std::vector<double> cycle_blocks;
  bool clocked = true;
  for (std::size_t k = 0; k < blocks; ++k) {
    const auto* a1 = trials.a[2 * k];
    const auto* b1 = trials.b[2 * k];
    const auto* b2 = trials.b[(2 * k) + 1];
    const auto* a2 = trials.a[(2 * k) + 1];
    const std::array<double, trials_per_block> times{a[2 * k], b[2 * k], b[(2 * k) + 1],
                                                     a[(2 * k) + 1]};
    time_blocks.push_back(block_log_ratio(trial_order::balanced, times));
    const auto c1 = clock_of(*a1);
    const auto c2 = clock_of(*b1);
    const auto c3 = clock_of(*b2);
    const auto c4 = clock_of(*a2);
    clocked = clocked && c1 && c2 && c3 && c4;
    if (clocked) {
      cycle_blocks.push_back(block_log_ratio(
          trial_order::balanced, {times[0] * *c1, times[1] * *c2, times[2] * *c3, times[3] * *c4}));
    }
  }
  // The observations: the blocks, or the process pairs' means, with the reference measured in
  // each pair where one ran (compare/reference_adjustment.hpp).
  const auto sequence_of = [&](const std::vector<double>& block_log_ratios) {
    if (trials.process_pairs.empty()) {
      return referenced_ratio(options.alpha, reading.resolution_fraction, block_log_ratios, {});
    }
    const auto pairs = process_pair_log_ratios(block_log_ratios, trials.process_pairs);
    std::vector<std::optional<double>> reference;
    if (!trials.reference.empty()) {
      reference.resize(pairs.size());
      std::copy_n(trials.reference.begin(), std::min(trials.reference.size(), pairs.size()),
                  reference.begin());
    }
    return referenced_ratio(options.alpha, reading.resolution_fraction, pairs, reference);
  };
  const referenced_ratio both = sequence_of(time_blocks);
  const sequential_ratio& time = both.deciding();
  if (!trials.process_pairs.empty()) {
    reading.referenced = both.referenced();
    reading.units = both.adjustment();
  }
  reading.time = both.interval();
  // Where rounds run several blocks, a block's own spread and the rest (compare/round_blocks):
  // over the rounds the deciding sequence reads, its variance unbiased like the blocks' own.
  if (options.most_blocks > 1 && !trials.process_pairs.empty() && time.blocks() >= 2) {
    const double n = static_cast<double>(time.blocks());
    reading.spread = split_round_spread(a, b, trials.process_pairs, time.variance() * n / (n - 1),
                                        time.blocks());
    reading.spread_adjusted = both.adjusted_decides();
  }
  const std::optional<round_spread>& spread = reading.spread;
  const bool enough = reading.time.blocks >= options.min_observations;
  const double same_band = same_band_of(options);
  reading.decision =
      enough ? decide(reading.time, options.threshold, same_band) : ab_decision::undecided;
  if (reading.decision == ab_decision::undecided) {
    // The adjusted sequence leaves out the rounds before a slope was known: counts in its terms
    // are that many rounds short of the state's.
    const std::size_t left_out = reading.time.blocks - time.blocks();
    const auto less = [left_out](std::size_t n) { return n > left_out ? n - left_out : 1; };
    if (const auto needed = time.observations_to_decide(options.threshold)) {
      reading.observations_needed = std::max(*needed + left_out, options.min_observations);
    }
    reading.no_verdict_reachable = enough && time.no_verdict_reachable(same_band);
    if (enough) {
      // The rounds to come run options.next_blocks blocks: the floor reads them at that spread.
      std::optional<double> later;
      if (spread && options.next_blocks > 1) {
        later = spread->between + (spread->within / static_cast<double>(options.next_blocks));
      }
      const spread_floor_look look = look_at_spread(
          time, options.threshold, same_band, less(options.widen_within), options.widest_band,
          options.give_up_beyond == 0 ? 0 : less(options.give_up_beyond), later);
      reading.out_of_reach = look.give_up;
      reading.reachable_band = look.same_band;
    }
    if (spread) {
      // Past the run's limit too (blocks_for_next_round), up to ten times it.
      const std::size_t limit =
          less(projection_limit_factor * std::max<std::size_t>(options.widen_within, 1));
      reading.projected_blocks =
          project_blocks(time, same_band, options.threshold, *spread, options.most_blocks, limit);
      for (auto& p : reading.projected_blocks) {
        if (p.rounds) {
          *p.rounds += left_out;
        }
      }
    }
  }
  if (clocked && blocks > 0) {
    reading.cycles = sequence_of(cycle_blocks).interval();
  }
  return reading;
}

state_comparison compare_ab_state(const std::string& name, const ab_trials& trials,
                                  const ab_options& options, ab_end end) {
  const ab_reading reading = read_ab(trials, options);
  const std::size_t blocks = reading.blocks;
  const std::size_t observations = reading.time.blocks;
  const bool by_pairs = !trials.process_pairs.empty();
  // "5 process pairs (5 blocks of A B B A, 20 trials ...)" or "5 blocks of A B B A (20 trials ...)"
  const std::string what_ran =
      by_pairs ? fmt::format("{} process pair{} ({} block{} of A B B A, {} trials, each a fresh "
                             "preparation)",
                             observations, observations == 1 ? "" : "s", blocks,
                             blocks == 1 ? "" : "s", 4 * blocks)
               : fmt::format("{} block{} of A B B A ({} trials, each a fresh preparation)", blocks,
                             blocks == 1 ? "" : "s", 4 * blocks);
  side a;
  side b;
  a.runs = trials.a;
  b.runs = trials.b;
  state_comparison s;
  s.state_name = name;
  s.metric = trials.a.empty() ? headline_metric::span : trials.a.front()->protocol_used.metric;
  const auto a_times = times_of(trials.a, trials.a.size());
  const auto b_times = times_of(trials.b, trials.b.size());
  s.base_ns = a_times.empty() ? 0 : median(a_times);
  s.new_ns = b_times.empty() ? 0 : median(b_times);
  s.ratio = observations > 0 ? reading.time.ratio : (s.base_ns > 0 ? s.new_ns / s.base_ns : 1);
  s.unit = by_pairs ? "process pairs" : "blocks";
  s.base_units = s.new_units = static_cast<int>(observations);
  const double same_band = same_band_of(options);
  s.band = same_band;
  s.band_reason = options.band_reason.empty() ? "threshold" : options.band_reason;
  s.timer_resolution_ns = std::max(a.timer_resolution_ns(), b.timer_resolution_ns());
  if (s.timer_resolution_ns > 0 && s.base_ns > 0) {
    s.change_in_steps = (s.new_ns - s.base_ns) / s.timer_resolution_ns;
  }
  const bool enough = observations >= options.min_observations;
  const ab_decision decision =
      !enough ? ab_decision::inconclusive
              : (end == ab_end::decided ? reading.decision
                                        : conclude(reading.time, options.threshold, same_band));
  if (!enough) {
    s.notes.push_back(fmt::format("{} {}: a verdict needs {} at least", observations, s.unit,
                                  options.min_observations));
  }
  s.outcome = verdict_of_decision(decision);
  if (s.outcome == verdict::inconclusive && reading.observations_needed) {
    s.units_needed = static_cast<int>(*reading.observations_needed);
  }
  if (std::isfinite(reading.time.high)) {
    s.ratio_low = reading.time.low;
    s.ratio_high = reading.time.high;
  } else {
    s.ratio_low = s.ratio_high = s.ratio;
    s.notes.push_back(fmt::format("{}: the interval needs at least 3 {}", what_ran, s.unit));
  }
  switch (end) {
  case ab_end::decided:
    s.notes.push_back(fmt::format("decided after {}", what_ran));
    break;
  case ab_end::max_pairs:
  case ab_end::max_time:
    s.notes.push_back(fmt::format(
        "{} reached after {} before the interval decided; the interval reached is shown{}",
        end == ab_end::max_pairs ? "--max-pairs" : "--max-time", what_ran,
        reading.resolution_fraction >= options.threshold
            ? fmt::format(": the timer's resolution (its step of {:.0f} ns, over the readings a "
                          "preparation averages) alone is ±{:.1f} % of the time, as "
                          "wide as the band, so no number of trials can settle it; measure more "
                          "work per iteration or widen --threshold",
                          s.timer_resolution_ns, 100 * reading.resolution_fraction)
            : ""));
    break;
  case ab_end::out_of_reach:
    s.notes.push_back(fmt::format(
        "stopped after {}: its {} spread so widely that even a ratio of exactly 1 would need "
        "more than {} of them to settle within ±{:g} %, twice what --max-pairs allows{}; raise "
        "--max-pairs{} or widen --threshold",
        what_ran, s.unit, options.give_up_beyond, 100 * std::max(options.widest_band, same_band),
        s.units_needed ? fmt::format(" (at the ratio reached, ~{})", *s.units_needed) : "",
        by_pairs ? " (each is a fresh process pair)" : ""));
    break;
  case ab_end::no_verdict_reachable:
    s.notes.push_back(fmt::format(
        "stopped after {}: the timer's resolution (its step of {:.0f} ns, over the readings a "
        "preparation averages) alone is ±{:.1f} % of the time, as wide "
        "as the band, so `same` cannot be reached, and the interval without it already lies "
        "inside the band, so neither can `slower` or `faster`; measure more work per iteration "
        "or widen --threshold",
        what_ran, s.timer_resolution_ns, 100 * reading.resolution_fraction));
    break;
  }
  if (reading.units && observations >= 2) {
    const reference_adjusted& units = *reading.units;
    s.unit_sd = units.sd_all;
    if (reading.referenced) {
      s.reference_beta = units.beta;
    }
    if (units.adjusted.size() >= 2) {
      s.unit_sd_adjusted = units.sd_after;
    }
    if (!units.adjusted.empty()) {
      s.notes.push_back(fmt::format(
          "{} of its {} process pairs adjusted by kerntime's reference (16 one-warp launches "
          "measured in the same pair: B/A exactly 1 but for the pair's mode; slope {:.2f} from "
          "the pairs before each): their spread {:.2f} % as measured, {:.2f} % adjusted; the "
          "interval is where the sequences over all pairs and over these, each at alpha / 2, "
          "agree",
          units.adjusted.size(), observations, units.beta.value_or(0), 100 * units.sd_before,
          100 * units.sd_after));
    }
  }
  if (by_pairs) {
    if (const auto note = blocks_note(trials, reading)) {
      s.notes.push_back(*note);
    }
  }
  s.base_sm_clock_mhz = a.sm_clock_mhz();
  s.new_sm_clock_mhz = b.sm_clock_mhz();
  if (reading.cycles) {
    s.cycles_ratio = reading.cycles->ratio;
    const verdict in_cycles = verdict_of_decision(
        end == ab_end::decided ? decide(*reading.cycles, options.threshold, same_band)
                               : conclude(*reading.cycles, options.threshold, same_band));
    if ((s.outcome == verdict::slower || s.outcome == verdict::faster) && in_cycles != s.outcome) {
      // A and B ran in the same minutes, so a clock that differs between them is the code's own
      // (its power draw), not drift: the verdict in time stands, and the note says why.
      s.notes.push_back(fmt::format(
          "{} in time, {} in cycles (ratio {:.4f}): B ran at {:.0f} MHz and A at {:.0f} MHz, "
          "interleaved in the same minutes, so the clock the code runs at (its power draw) made "
          "the difference",
          to_string(s.outcome), to_string(in_cycles), *s.cycles_ratio,
          s.new_sm_clock_mhz.value_or(0), s.base_sm_clock_mhz.value_or(0)));
    }
  }
  s.regression = s.outcome == verdict::slower;
  for (const auto& [label, which] : {std::pair{"A", &a}, std::pair{"B", &b}}) {
    if (const std::string throttled = which->throttling(); !throttled.empty()) {
      s.notes.push_back(fmt::format("{} throttled: {}", label, throttled));
    }
  }
  if (!a.runs.empty() && !b.runs.empty() && a.all_cupti() && b.all_cupti()) {
    s.kernels = kernel_changes(a, b);
  } else {
    s.notes.push_back("a side was timed with CUDA events: no per-kernel comparison");
  }
  return s;
}

} // namespace kerntime::detail
