// The A/B comparison of one state from its preparations (compare/ab_comparison.hpp) and the pooled
// result a side's file holds (compare/pooled_result.hpp), over real measurement_result structs:
// the verdicts, the limits, time against cycles, the timer's step, bad input.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "compare/ab_comparison.hpp"
#include "compare/pooled_result.hpp"
#include "kerntime/errors.hpp"
#include "kerntime/statistics.hpp"

namespace kerntime::detail {
namespace {

// One preparation: a trial of 4 iterations at `ns`, on-GPU clock `mhz`, one kernel, CUPTI.
measurement_result preparation(double ns, double mhz = 1980, double step = 0,
                               const std::string& kernel = "gemm") {
  measurement_result r;
  trial_result trial;
  trial.iterations.assign(4, iteration_sample{.span_ns = ns, .busy_ns = ns});
  trial.telemetry.measured_sm_clock_mhz = mhz;
  r.trials.push_back(trial);
  r.latency_ns = ns;
  r.backend = timing_backend::cupti;
  r.timer_resolution_ns = step;
  r.kernels.push_back(
      {.name = kernel, .calls_per_iteration = 1, .mean_ns = ns, .median_ns = ns, .share = 1});
  r.phases.trials = 0.01;
  r.wall_seconds = 0.02;
  return r;
}

// A run of `blocks` blocks: A's preparations near `a_ns`, B's near `b_ns`, each with a small
// spread that differs from trial to trial (±0.1 %).
struct ab_fixture {
  std::vector<measurement_result> a;
  std::vector<measurement_result> b;

  ab_fixture(int blocks, double a_ns, double b_ns, double b_mhz = 1980, double step = 0) {
    const std::vector<double> spread{1.0, 1.001, 0.999, 1.0004, 0.9993, 1.0008, 0.9997, 1.0002};
    for (int i = 0; i < 2 * blocks; ++i) {
      const double f = spread[static_cast<std::size_t>(i) % spread.size()];
      a.push_back(preparation(a_ns * f, 1980, step));
      b.push_back(
          preparation(b_ns * spread[static_cast<std::size_t>(i + 3) % spread.size()], b_mhz, step));
    }
  }
  [[nodiscard]] ab_trials trials() const {
    ab_trials t;
    for (const auto& r : a) {
      t.a.push_back(&r);
    }
    for (const auto& r : b) {
      t.b.push_back(&r);
    }
    return t;
  }
};

bool has_note(const state_comparison& s, const std::string& part) {
  return std::any_of(s.notes.begin(), s.notes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

TEST(ab_comparison, a_change_of_three_percent_is_decided_slower) {
  const ab_fixture f(5, 1000, 1030);
  const auto reading = read_ab(f.trials(), {});
  EXPECT_EQ(reading.decision, ab_decision::slower);
  const auto s = compare_ab_state("gemm/n=1", f.trials(), {}, ab_end::decided);
  EXPECT_EQ(s.outcome, verdict::slower);
  EXPECT_TRUE(s.regression);
  EXPECT_NEAR(s.ratio, 1.03, 0.002);
  EXPECT_GT(s.ratio_low, 1.01);
  EXPECT_LT(s.ratio_high, 1.05);
  EXPECT_EQ(s.unit, "blocks");
  EXPECT_EQ(s.base_units, 5);
  EXPECT_NEAR(s.base_ns, 1000, 1);
  EXPECT_NEAR(s.new_ns, 1030, 1.5);
  ASSERT_EQ(s.kernels.size(), 1U);
  EXPECT_NEAR(*s.kernels[0].new_mean_ns / *s.kernels[0].base_mean_ns, 1.03, 0.002);
  EXPECT_TRUE(has_note(s, "decided after 5 blocks"));
  ASSERT_TRUE(s.cycles_ratio);
  EXPECT_NEAR(*s.cycles_ratio, s.ratio, 1e-9); // the same clock on both sides
}

TEST(ab_comparison, blocks_from_several_process_pairs_are_read_one_mean_per_pair) {
  const ab_fixture f(8, 1000, 1030);
  ab_trials t = f.trials();
  t.process_pairs = {2, 2, 2, 2};
  const auto reading = read_ab(t, {});
  EXPECT_EQ(reading.blocks, 8U);
  EXPECT_EQ(reading.time.blocks, 4U); // four observations, one per process pair
  EXPECT_NEAR(reading.time.ratio, read_ab(f.trials(), {}).time.ratio, 1e-12);
  ASSERT_TRUE(reading.cycles);
  EXPECT_EQ(reading.cycles->blocks, 4U);
  const auto s = compare_ab_state("gemm/n=1", t, {}, ab_end::decided);
  EXPECT_EQ(s.outcome, verdict::slower);
  EXPECT_EQ(s.unit, "process pairs");
  EXPECT_EQ(s.base_units, 4);
  EXPECT_TRUE(has_note(s, "decided after 4 process pairs (8 blocks of A B B A, 32 trials"));
  // A pair still running is not read: two pairs of four blocks, the second half done.
  t.process_pairs = {4, 8};
  EXPECT_EQ(read_ab(t, {}).time.blocks, 1U);
}

// Process pairs in modes: in pair k B's process reads `mode[k]` (a log offset) slower than A's,
// in the state and, as its reference, in kerntime's launches; one block per pair.
struct moded_pairs {
  std::vector<measurement_result> a;
  std::vector<measurement_result> b;
  std::vector<std::optional<double>> reference;

  moded_pairs(const std::vector<double>& mode, double slope, double b_ratio) {
    const std::vector<double> noise{0.001, -0.0008, 0.0004, -0.0011, 0.0006, -0.0003, 0.0009};
    for (std::size_t k = 0; k < mode.size(); ++k) {
      for (int t = 0; t < 2; ++t) {
        a.push_back(preparation(1000));
        b.push_back(preparation(1000 * b_ratio * std::exp((slope * mode[k]) + noise[k % 7])));
      }
      reference.emplace_back(mode[k]);
    }
  }
  [[nodiscard]] ab_trials trials(bool with_reference) const {
    ab_trials t;
    for (std::size_t i = 0; i < a.size(); ++i) {
      t.a.push_back(&a[i]);
      t.b.push_back(&b[i]);
    }
    t.process_pairs.assign(a.size() / 2, 1);
    if (with_reference) {
      t.reference = reference;
    }
    return t;
  }
};

// 24 process pairs whose B/A modes go +6.5 %, 0, -6.5 %, 0, 0, +6.5 % and again.
std::vector<double> modes_of_24_pairs() {
  std::vector<double> mode;
  mode.reserve(24);
  for (int k = 0; k < 24; ++k) {
    mode.push_back(std::vector<double>{0.065, 0, -0.065, 0, 0, 0.065}[k % 6]);
  }
  return mode;
}

TEST(ab_comparison, process_pairs_adjusted_by_the_reference_lose_their_modes_and_say_so) {
  const std::vector<double> mode = modes_of_24_pairs();
  const moded_pairs pairs(mode, 0.5, 1.0);
  const auto plain = read_ab(pairs.trials(false), {});
  const auto adjusted = read_ab(pairs.trials(true), {});
  ASSERT_TRUE(plain.units);
  EXPECT_FALSE(plain.referenced);
  ASSERT_TRUE(adjusted.units);
  EXPECT_TRUE(adjusted.referenced);
  EXPECT_EQ(adjusted.units->adjusted.size(), mode.size() - reference_min_rounds);
  // The adjusted pairs lose their modes: of the same pairs, the spread falls to the noise's.
  EXPECT_LT(adjusted.units->sd_after, adjusted.units->sd_before / 5);
  EXPECT_DOUBLE_EQ(plain.units->sd_all, adjusted.units->sd_all);
  EXPECT_LT(adjusted.time.high - adjusted.time.low, (plain.time.high - plain.time.low) / 1.5);
  const auto s =
      compare_ab_state("radix_sort/elements=65536", pairs.trials(true), {}, ab_end::max_pairs);
  ASSERT_TRUE(s.unit_sd && s.unit_sd_adjusted && s.reference_beta);
  EXPECT_NEAR(*s.reference_beta, 0.5, 0.02);
  EXPECT_LT(*s.unit_sd_adjusted, *s.unit_sd / 2);
  EXPECT_TRUE(has_note(s, "20 of its 24 process pairs adjusted by kerntime's reference"));
  // Without a reference the spread is reported, the adjusted one and the slope are not.
  const auto unreferenced =
      compare_ab_state("radix_sort/elements=65536", pairs.trials(false), {}, ab_end::max_pairs);
  EXPECT_TRUE(unreferenced.unit_sd);
  EXPECT_FALSE(unreferenced.unit_sd_adjusted || unreferenced.reference_beta);
}

// 24 process pairs in the modes above, the state following the reference's mode fully, the first
// four of one block and the rest of two; each of B's preparations has its own noise of 1.5 %.
struct moded_blocks {
  std::vector<measurement_result> a;
  std::vector<measurement_result> b;
  ab_trials trials;

  moded_blocks() {
    const std::vector<double> mode = modes_of_24_pairs();
    std::mt19937 draw(7);
    std::normal_distribution<double> noise(0, 0.015);
    for (std::size_t k = 0; k < mode.size(); ++k) {
      trials.process_pairs.push_back(k < 4 ? 1 : 2);
      trials.reference.emplace_back(mode[k]);
      for (std::size_t t = 0; t < 2 * trials.process_pairs.back(); ++t) {
        a.push_back(preparation(1000));
        b.push_back(preparation(1000 * std::exp(mode[k] + noise(draw))));
      }
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
      trials.a.push_back(&a[i]);
      trials.b.push_back(&b[i]);
    }
  }
};

// The two spreads a blocks note names ("... spread by X % (which ...), ... by Y % (which ...)").
std::pair<double, double> spreads_named(const std::string& note) {
  const auto first = note.find("spread by ");
  const auto second = note.find("beyond that by ");
  EXPECT_NE(first, std::string::npos) << note;
  EXPECT_NE(second, std::string::npos) << note;
  if (first == std::string::npos || second == std::string::npos) {
    return {-1, -1};
  }
  return {std::stod(note.substr(first + 10)), std::stod(note.substr(second + 15))};
}

TEST(ab_comparison, a_blocks_note_names_the_split_its_rounds_were_read_at) {
  moded_blocks f;
  const ab_options options{.most_blocks = 4};
  const auto note_of = [&](const ab_trials& t) {
    const auto s =
        compare_ab_state("reduce_sum/T=int/elements=65536", t, options, ab_end::max_pairs);
    const auto it = std::find_if(s.notes.begin(), s.notes.end(), [](const std::string& n) {
      return n.starts_with("its rounds ran 1 to 2 blocks (of 44 in all)");
    });
    return it == s.notes.end() ? std::string() : *it;
  };
  // With the reference, the modes are taken out: what is left is mostly the blocks' own (1.5 % /
  // sqrt 2 a block; the pairs keep what the slope, learnt from the rounds before each, misses),
  // and the note says the rounds were read as adjusted.
  const std::string adjusted = note_of(f.trials);
  ASSERT_FALSE(adjusted.empty());
  EXPECT_NE(adjusted.find(", as adjusted by the reference"), std::string::npos) << adjusted;
  const auto [own, pairs] = spreads_named(adjusted);
  EXPECT_GT(own, 0.7) << adjusted;
  EXPECT_LT(own, 1.6) << adjusted;
  EXPECT_LT(pairs, 1.0) << adjusted;
  // Without it, the process pairs carry the modes (about 4.8 %), the blocks' own is the same, and
  // the note says nothing of an adjustment.
  ab_trials plain = f.trials;
  plain.reference.clear();
  const std::string measured = note_of(plain);
  ASSERT_FALSE(measured.empty());
  EXPECT_EQ(measured.find("adjusted"), std::string::npos) << measured;
  EXPECT_GT(spreads_named(measured).second, 3.5) << measured;
  EXPECT_NEAR(spreads_named(measured).first, own, 0.3) << measured;
}

TEST(ab_comparison, a_real_change_outside_the_reference_keeps_its_ratio_when_adjusted) {
  const moded_pairs pairs(modes_of_24_pairs(), 1.2, 1.03);
  const auto adjusted = read_ab(pairs.trials(true), {});
  EXPECT_NEAR(adjusted.time.ratio, 1.03, 0.004);
  EXPECT_EQ(adjusted.decision, ab_decision::slower);
}

TEST(ab_comparison, equal_sides_within_the_noise_are_the_same) {
  const ab_fixture f(4, 1000, 1000);
  const auto s = compare_ab_state("copy", f.trials(), {}, ab_end::decided);
  EXPECT_EQ(s.outcome, verdict::same);
  EXPECT_FALSE(s.regression);
  EXPECT_GT(s.ratio_low, 1 / 1.01);
  EXPECT_LT(s.ratio_high, 1.01);
}

TEST(ab_comparison, a_faster_side_is_faster_and_no_regression) {
  const ab_fixture f(4, 1000, 950);
  const auto s = compare_ab_state("copy", f.trials(), {}, ab_end::decided);
  EXPECT_EQ(s.outcome, verdict::faster);
  EXPECT_FALSE(s.regression);
}

TEST(ab_comparison, a_limit_before_three_blocks_is_inconclusive_and_says_so) {
  const ab_fixture f(2, 1000, 1030);
  EXPECT_EQ(read_ab(f.trials(), {}).decision, ab_decision::undecided);
  const auto s = compare_ab_state("copy", f.trials(), {}, ab_end::max_pairs);
  EXPECT_EQ(s.outcome, verdict::inconclusive);
  EXPECT_FALSE(s.regression);
  EXPECT_DOUBLE_EQ(s.ratio_low, s.ratio);
  EXPECT_DOUBLE_EQ(s.ratio_high, s.ratio);
  EXPECT_TRUE(has_note(s, "needs at least 3"));
  EXPECT_TRUE(has_note(s, "--max-pairs reached after 2 blocks"));
  EXPECT_FALSE(s.units_needed); // two blocks say nothing of the spread
}

TEST(ab_comparison, fewer_observations_than_the_minimum_give_no_verdict) {
  const ab_fixture f(5, 1000, 1030);
  ab_options options;
  options.min_observations = 6;
  EXPECT_EQ(read_ab(f.trials(), options).decision, ab_decision::undecided);
  for (const ab_end end : {ab_end::decided, ab_end::max_time}) {
    const auto s = compare_ab_state("copy", f.trials(), options, end);
    EXPECT_EQ(s.outcome, verdict::inconclusive);
    EXPECT_FALSE(s.regression);
    EXPECT_TRUE(has_note(s, "5 blocks: a verdict needs 6 at least"));
  }
  options.min_observations = 5;
  EXPECT_EQ(compare_ab_state("copy", f.trials(), options, ab_end::max_time).outcome,
            verdict::slower);
}

TEST(ab_comparison, an_inconclusive_state_says_how_many_observations_would_settle_it) {
  // B 1 % slower on the ±1 % band's edge: nothing settles it; 0.9 % slower: more blocks would.
  const ab_fixture edge(4, 1000, 1010);
  EXPECT_FALSE(compare_ab_state("copy", edge.trials(), {}, ab_end::max_pairs).units_needed);
  const ab_fixture near(4, 1000, 1009);
  const auto s = compare_ab_state("copy", near.trials(), {}, ab_end::max_pairs);
  EXPECT_EQ(s.outcome, verdict::inconclusive);
  ASSERT_TRUE(s.units_needed);
  EXPECT_GT(*s.units_needed, 4);
}

TEST(ab_comparison, a_spread_that_no_allowed_number_of_observations_can_settle_stops_early) {
  // A/A whose blocks scatter by ±4 %: 12 blocks, alternately 4 % either way (B's side).
  ab_fixture wide(12, 1000, 1000);
  for (std::size_t i = 0; i < wide.b.size(); i += 2) {
    const double f = (i / 2) % 2 == 0 ? 1.04 : 0.96;
    wide.b[i] = preparation(1000 * f);
    wide.b[i + 1] = preparation(1000 * f);
  }
  ab_options options;
  options.give_up_beyond = 100; // --max-pairs 100 at one block per round, twice
  const ab_reading reading = read_ab(wide.trials(), options);
  EXPECT_EQ(reading.decision, ab_decision::undecided);
  EXPECT_TRUE(reading.out_of_reach);
  const auto s = compare_ab_state("tiny", wide.trials(), options, ab_end::out_of_reach);
  EXPECT_EQ(s.outcome, verdict::inconclusive);
  EXPECT_TRUE(has_note(s, "stopped after 12 blocks"));
  EXPECT_TRUE(has_note(s, "more than 100 of them to settle within ±1 %"));
  EXPECT_TRUE(has_note(s, "raise --max-pairs"));
  ASSERT_TRUE(s.units_needed);
  EXPECT_GT(*s.units_needed, 100);
  // Off (0), or a limit the spread can meet, or a quiet pair: no early stop.
  EXPECT_FALSE(read_ab(wide.trials(), {}).out_of_reach);
  options.give_up_beyond = 5000;
  EXPECT_FALSE(read_ab(wide.trials(), options).out_of_reach);
  options.give_up_beyond = 100;
  EXPECT_FALSE(read_ab(ab_fixture(12, 1000, 1001).trials(), options).out_of_reach);
}

TEST(ab_comparison, an_incomplete_block_is_not_read) {
  ab_fixture f(3, 1000, 1030);
  f.a.push_back(preparation(5000)); // a fourth block begun: one A trial only
  EXPECT_EQ(read_ab(f.trials(), {}).time.blocks, 3U);
}

TEST(ab_comparison, slower_in_time_at_a_lower_clock_is_named_in_the_notes) {
  // B takes 3 % longer at a clock 3 % lower: the same cycles, so its clock made the difference.
  const ab_fixture f(5, 1000, 1030, 1980 / 1.03);
  const auto s = compare_ab_state("gemm", f.trials(), {}, ab_end::decided);
  EXPECT_EQ(s.outcome, verdict::slower);
  EXPECT_TRUE(s.regression); // interleaved: the clock is the code's own, the verdict stands
  EXPECT_FALSE(s.clock_mismatch);
  ASSERT_TRUE(s.cycles_ratio);
  EXPECT_NEAR(*s.cycles_ratio, 1.0, 0.002);
  EXPECT_TRUE(has_note(s, "slower in time, same in cycles"));
}

TEST(ab_comparison, without_the_clock_there_is_no_ratio_in_cycles) {
  ab_fixture f(4, 1000, 1030);
  f.b[3].trials[0].telemetry.measured_sm_clock_mhz.reset();
  const auto s = compare_ab_state("gemm", f.trials(), {}, ab_end::decided);
  EXPECT_FALSE(s.cycles_ratio);
}

TEST(ab_comparison, a_timer_step_as_wide_as_the_band_says_no_trials_can_settle_it) {
  const ab_fixture f(5, 200, 200, 1980, 32);
  const auto reading = read_ab(f.trials(), {});
  EXPECT_NEAR(reading.timer_step_fraction, 0.16, 0.001);
  const auto s = compare_ab_state("tiny", f.trials(), {}, ab_end::max_time);
  EXPECT_EQ(s.outcome, verdict::inconclusive);
  EXPECT_TRUE(has_note(s, "--max-time reached"));
  EXPECT_TRUE(has_note(s, "no number of trials can settle it"));
  EXPECT_DOUBLE_EQ(s.timer_resolution_ns, 32);
}

TEST(ab_comparison, a_side_timed_with_cuda_events_has_no_kernel_diff) {
  ab_fixture f(3, 1000, 1000);
  f.b[0].backend = timing_backend::events;
  const auto s = compare_ab_state("copy", f.trials(), {}, ab_end::decided);
  EXPECT_TRUE(s.kernels.empty());
  EXPECT_TRUE(has_note(s, "CUDA events"));
}

TEST(ab_comparison, a_preparation_without_a_time_is_refused) {
  ab_fixture f(3, 1000, 1000);
  f.a[2].latency_ns = 0;
  f.a[2].trials[0].iterations.assign(4, iteration_sample{});
  EXPECT_THROW((void)read_ab(f.trials(), {}), invalid_argument);
}

// A preparation of `iterations` readings of a `true_ns` kernel by a timer of `step` ns, each
// kernel starting anywhere between two ticks (so it reads a step long or short at random).
measurement_result read_by_ticks(double true_ns, double step, std::mt19937_64& random,
                                 int iterations = 50) {
  std::uniform_real_distribution<double> phase(0, step);
  std::normal_distribution<double> jitter(0, 3);
  std::vector<double> readings;
  for (int i = 0; i < iterations; ++i) {
    const double start = phase(random);
    readings.push_back(
        step * (std::floor((start + true_ns + jitter(random)) / step) - std::floor(start / step)));
  }
  measurement_result r = preparation(true_ns, 1980, step);
  r.trials[0].iterations.clear();
  for (const double ns : readings) {
    r.trials[0].iterations.push_back({.span_ns = ns, .busy_ns = ns});
  }
  r.latency_ns = median(readings);
  return r;
}

TEST(ab_comparison, readings_that_straddle_the_timers_ticks_decide_below_its_step) {
  // 1.8 µs against 1.8 µs with a 32 ns timer: the step is ±1.8 % of the time, so trial medians
  // (on the ticks) can never show ±1 %; the clipped means of 50 readings resolve 32 / √50 ns.
  std::mt19937_64 random(11);
  std::vector<measurement_result> a;
  std::vector<measurement_result> b;
  for (int i = 0; i < 16; ++i) {
    a.push_back(read_by_ticks(1800, 32, random));
    b.push_back(read_by_ticks(1800, 32, random));
  }
  ab_trials trials;
  for (std::size_t i = 0; i < a.size(); ++i) {
    trials.a.push_back(&a[i]);
    trials.b.push_back(&b[i]);
  }
  const auto reading = read_ab(trials, {});
  EXPECT_NEAR(reading.timer_step_fraction, 32.0 / 1800, 0.001);
  EXPECT_NEAR(reading.resolution_fraction, 32.0 / 1800 / std::sqrt(50.0), 0.0005);
  EXPECT_EQ(reading.decision, ab_decision::same);
  EXPECT_NEAR(reading.time.ratio, 1, 0.005);
  // The same kernel made 1.5 % longer (27 ns, under a step) is decided slower.
  std::vector<measurement_result> slower;
  slower.reserve(16);
  for (int i = 0; i < 16; ++i) {
    slower.push_back(read_by_ticks(1800 * 1.015, 32, random));
  }
  trials.b.clear();
  for (const auto& r : slower) {
    trials.b.push_back(&r);
  }
  EXPECT_EQ(read_ab(trials, {}).decision, ab_decision::slower);
}

TEST(ab_comparison, readings_all_on_one_tick_keep_the_whole_step_as_the_resolution) {
  // No spread shows no start phase varying between the ticks: the step stays the floor.
  const ab_fixture f(5, 1800, 1800, 1980, 32);
  const auto reading = read_ab(f.trials(), {});
  EXPECT_DOUBLE_EQ(reading.resolution_fraction, reading.timer_step_fraction);
  EXPECT_EQ(reading.decision, ab_decision::undecided);
}

TEST(ab_comparison, a_stray_iteration_does_not_move_a_preparations_time) {
  measurement_result r = preparation(1000);
  r.trials[0].iterations[3] = {.span_ns = 50'000, .busy_ns = 50'000};
  EXPECT_DOUBLE_EQ(preparation_time_ns(r), 1000);
  r.trials[0].iterations.clear();
  EXPECT_DOUBLE_EQ(preparation_time_ns(r), 1000); // no readings: the median it reports
}

TEST(ab_comparison, options_out_of_range_are_refused) {
  EXPECT_THROW(check_ab_options({.threshold = 0}), invalid_argument);
  EXPECT_THROW(check_ab_options({.threshold = 0.01, .alpha = 1}), invalid_argument);
  EXPECT_NO_THROW(check_ab_options({}));
}

TEST(pooled_result, the_preparations_become_one_result_with_a_trial_each) {
  std::vector<measurement_result> runs{preparation(1000, 1980, 32, "gemm"),
                                       preparation(1100, 1980, 32, "gemm"),
                                       preparation(1300, 1980, 32, "gemm")};
  runs[1].kernels.push_back({.name = "epilogue",
                             .calls_per_iteration = 1,
                             .mean_ns = 30,
                             .median_ns = 30,
                             .share = 0.03});
  runs[2].warnings = {"a warning", "another"};
  runs[0].warnings = {"a warning"};
  const std::vector<const measurement_result*> pointers{&runs[0], &runs[1], &runs[2]};
  const auto pooled = pool_preparations(pointers);
  EXPECT_EQ(pooled.trials.size(), 3U);
  EXPECT_EQ(pooled.protocol_used.trials, 3);
  EXPECT_DOUBLE_EQ(pooled.latency_ns, 1100); // the median of every iteration
  EXPECT_EQ(pooled.trials_summary.medians.size(), 3U);
  ASSERT_EQ(pooled.kernels.size(), 2U);
  EXPECT_EQ(pooled.kernels[0].name, "gemm");
  EXPECT_NEAR(pooled.kernels[0].mean_ns, (1000 + 1100 + 1300) / 3.0, 1e-9);
  EXPECT_DOUBLE_EQ(pooled.kernels[0].median_ns, 1100);
  EXPECT_NEAR(pooled.kernels[1].mean_ns, 10, 1e-9); // run in one preparation of three
  EXPECT_NEAR(pooled.phases.trials, 0.03, 1e-12);
  EXPECT_NEAR(pooled.wall_seconds, 0.06, 1e-12);
  EXPECT_EQ(pooled.warnings, (std::vector<std::string>{"a warning", "another"}));
  EXPECT_EQ(pooled.backend, timing_backend::cupti);
  EXPECT_FALSE(pooled.energy.available);
  EXPECT_NE(pooled.energy.unavailable_reason.find("pooled from 3 preparations"), std::string::npos)
      << pooled.energy.unavailable_reason;
}

TEST(pooled_result, a_preparation_timed_with_events_makes_the_pool_events_timed_saying_why) {
  std::vector<measurement_result> runs{preparation(1000), preparation(1010), preparation(990)};
  runs[1].backend = timing_backend::events;
  runs[1].backend_reason = "CUPTI is held by another profiler";
  for (auto& r : runs) { // an unsettled warm-up: summarise() warns once, not once more
    r.stopping.warmup_iterations = 40;
    r.stopping.warmup_settled = false;
  }
  const auto first = pool_preparations({&runs[0]});
  ASSERT_EQ(first.warnings.size(), 1U);
  runs[0].warnings = runs[1].warnings = first.warnings;
  const auto pooled = pool_preparations({&runs[0], &runs[1], &runs[2]});
  EXPECT_EQ(pooled.backend, timing_backend::events);
  EXPECT_EQ(pooled.backend_reason, "CUPTI is held by another profiler");
  EXPECT_EQ(pooled.warnings, first.warnings);
  EXPECT_FALSE(pooled.stopping.warmup_settled);
  EXPECT_EQ(pooled.stopping.warmup_iterations, 40);
}

TEST(pooled_result, counts_the_preparations_and_gives_the_sd_of_their_log_times) {
  std::vector<measurement_result> runs{preparation(1000), preparation(1100), preparation(1300)};
  const auto pooled = pool_preparations({&runs[0], &runs[1], &runs[2]});
  EXPECT_EQ(pooled.preparations, 3);
  const double mean = (std::log(1000.0) + std::log(1100.0) + std::log(1300.0)) / 3;
  const double sd =
      std::sqrt((std::pow(std::log(1000.0) - mean, 2) + std::pow(std::log(1100.0) - mean, 2) +
                 std::pow(std::log(1300.0) - mean, 2)) /
                2);
  ASSERT_TRUE(pooled.preparation_spread.has_value());
  EXPECT_NEAR(*pooled.preparation_spread, sd, 1e-12);
  // A pool of pools counts every preparation; one preparation has no spread.
  const auto again = pool_preparations({&pooled, &runs[0]});
  EXPECT_EQ(again.preparations, 4);
  EXPECT_FALSE(pool_preparations({&runs[0]}).preparation_spread.has_value());
  EXPECT_EQ(pool_preparations({&runs[0]}).preparations, 1);
}

TEST(pooled_result, the_spread_reads_each_preparations_clipped_mean_not_a_stray_iteration) {
  std::vector<measurement_result> runs{preparation(1000), preparation(1000)};
  runs[1].trials[0].iterations[2] = {.span_ns = 90'000, .busy_ns = 90'000};
  const auto pooled = pool_preparations({&runs[0], &runs[1]});
  ASSERT_TRUE(pooled.preparation_spread.has_value());
  EXPECT_DOUBLE_EQ(*pooled.preparation_spread, 0);
}

TEST(pooled_result, spread_of_preparations_needs_two_positive_times) {
  EXPECT_FALSE(spread_of_preparations({}).has_value());
  EXPECT_FALSE(spread_of_preparations({1000}).has_value());
  EXPECT_FALSE(spread_of_preparations({1000, 0}).has_value());
  EXPECT_FALSE(spread_of_preparations({1000, std::nan("")}).has_value());
  EXPECT_NEAR(*spread_of_preparations({1000, 1000 * std::exp(0.02)}), 0.02 / std::sqrt(2.0), 1e-12);
}

TEST(pooled_result, energy_is_the_sum_of_the_preparations_windows_where_every_one_read_it) {
  std::vector<measurement_result> runs{preparation(1000), preparation(1000)};
  runs[0].energy = {.available = true,
                    .joules_per_iteration = 0.1,
                    .average_watts = 500,
                    .window_s = 2.0,
                    .window_iterations = 10'000};
  runs[1].energy = {.available = true,
                    .joules_per_iteration = 0.2,
                    .average_watts = 500,
                    .window_s = 4.0,
                    .window_iterations = 10'000};
  const auto pooled = pool_preparations({&runs[0], &runs[1]});
  ASSERT_TRUE(pooled.energy.available) << pooled.energy.unavailable_reason;
  EXPECT_NEAR(*pooled.energy.joules_per_iteration, 0.15, 1e-12); // 3000 J over 20000
  EXPECT_NEAR(*pooled.energy.average_watts, 500, 1e-9);          // 3000 J over 6 s
  EXPECT_NEAR(*pooled.energy.window_s, 6.0, 1e-12);
  EXPECT_EQ(pooled.energy.window_iterations, 20'000U);
  runs[1].energy = {.available = false, .unavailable_reason = "the trials lasted 0.1 s"};
  const auto short_one = pool_preparations({&runs[0], &runs[1]});
  EXPECT_FALSE(short_one.energy.available);
  EXPECT_NE(short_one.energy.unavailable_reason.find("--preparations 1"), std::string::npos)
      << short_one.energy.unavailable_reason;
}

TEST(pooled_result, no_preparation_is_refused) {
  EXPECT_THROW((void)pool_preparations({}), invalid_argument);
}

} // namespace
} // namespace kerntime::detail
