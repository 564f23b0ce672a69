// The A/B run (supervise/ab_run.hpp) against the stand-in worker program as both sides: rounds
// of fresh process pairs, each giving a state one observation; states shared out over several
// device pairs; a device whose workers cannot start given up while the other runs everything; a
// CUDA fault on one side failing that state only; kept workers; the order of the trials; the
// limits. The command line around it is checked end to end in check_ab_cli.py.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "stand_in_outcome.hpp"
#include "supervise/ab_run.hpp"

#ifndef KERNTIME_STAND_IN_WORKER
#error "KERNTIME_STAND_IN_WORKER must name the stand-in worker program"
#endif

namespace kerntime::detail {
namespace {

using environment = std::vector<std::pair<std::string, std::string>>;

std::vector<ab_state> states_named(const std::vector<std::string>& names) {
  std::vector<ab_state> states;
  for (std::size_t i = 0; i < names.size(); ++i) {
    states.push_back({names[i], names[i].substr(0, names[i].find('/')), i, i});
  }
  return states;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& n : names) {
    text += (text.empty() ? "" : ",") + n;
  }
  return text;
}

// One device's pair of stand-in workers; `b_scale`: how much slower B's states are.
ab_pair_slot pair_on(int device, const std::vector<std::string>& names, double b_scale = 1.0,
                     environment extra = {}) {
  environment env{{"KERNTIME_WORKER_DEVICE", std::to_string(device)},
                  {"STAND_IN_STATES", joined(names)}};
  env.insert(env.end(), extra.begin(), extra.end());
  environment b_env = env;
  b_env.emplace_back("STAND_IN_SCALE", std::to_string(b_scale));
  return {.a = {.argv = {KERNTIME_STAND_IN_WORKER}, .environment = env},
          .b = {.argv = {KERNTIME_STAND_IN_WORKER}, .environment = b_env},
          .label = "GPU " + std::to_string(device)};
}

using outcome = stand_in_outcome<ab_state_outcome>;

outcome run_with(const std::vector<std::string>& names, std::vector<ab_pair_slot> pairs,
                 std::size_t min_rounds = 3, std::size_t max_pairs = 40, bool keep_workers = false,
                 bool start_ahead = false, std::size_t most_pairs_per_round = 8) {
  ab_run_settings settings;
  settings.most_pairs_per_round = most_pairs_per_round;
  settings.pairs = std::move(pairs);
  settings.min_rounds = min_rounds;
  settings.max_pairs = max_pairs;
  settings.keep_workers = keep_workers;
  settings.start_ahead = start_ahead;
  settings.trial_timeout_s = 30;
  settings.start_timeout_s = 30;
  return run_capturing_events<ab_state_outcome>(
      settings, [&names](const ab_run_settings& s, supervision_summary* summary) {
        return run_ab(states_named(names), s, summary);
      });
}

// The most rounds any state ran.
std::size_t rounds_of(const outcome& o) {
  std::size_t rounds = 0;
  for (const auto& s : o.states) {
    rounds = std::max(rounds, s.process_pairs.size());
  }
  return rounds;
}

TEST(ab_run, several_device_pairs_share_the_states_and_each_decides) {
  std::vector<std::string> names;
  names.reserve(8);
  for (int i = 0; i < 8; ++i) {
    names.push_back("ok/s" + std::to_string(i));
  }
  const environment slow{{"STAND_IN_STATE_MS", "5"}};
  const auto o = run_with(names, {pair_on(0, names, 1.05, slow), pair_on(1, names, 1.05, slow)});
  ASSERT_EQ(o.states.size(), names.size());
  std::set<int> devices;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto& s = o.states[i];
    EXPECT_EQ(s.state.name, names[i]); // in the order asked, whichever pair ran it
    ASSERT_TRUE(s.comparison) << s.failure;
    EXPECT_EQ(s.comparison->outcome, verdict::slower);
    EXPECT_NEAR(s.comparison->ratio, 1.05, 0.005);
    EXPECT_EQ(s.a.size(), s.b.size());
    // Three rounds at least (--min-rounds 3), each a fresh process pair running one block.
    EXPECT_EQ(s.process_pairs, (std::vector<std::size_t>{1, 1, 1}));
    EXPECT_EQ(s.a.size(), 6U);
    EXPECT_EQ(s.comparison->unit, "process pairs");
    EXPECT_EQ(s.comparison->base_units, 3);
    EXPECT_GT(s.finished_after_s, 0);
    ASSERT_TRUE(s.device);
    devices.insert(s.device->ordinal);
  }
  EXPECT_EQ(devices, (std::set<int>{0, 1}));
  // Every round starts a fresh pair of workers on each device.
  EXPECT_EQ(o.summary.workers_started, 4 * 3);
}

TEST(ab_run, a_timer_bound_state_stops_once_no_verdict_can_come) {
  // A 1 µs state under a 32 ns timer step (3.2 %) at ±1 %: `same` is out of reach, and once the
  // interval lies inside the band no change can be shown either: it stops after 8 rounds (the
  // fewest for that stop), not at --max-pairs (20 rounds), and says why.
  const std::vector<std::string> names{"ok/coarse"};
  const environment coarse{{"STAND_IN_TIMER_NS", "32"}, {"STAND_IN_NOISE", "0.0001"}};
  const auto o = run_with(names, {pair_on(0, names, 1.0, coarse)}, 3, 40);
  ASSERT_TRUE(o.states[0].comparison) << o.states[0].failure;
  const auto& c = *o.states[0].comparison;
  EXPECT_EQ(c.outcome, verdict::inconclusive);
  EXPECT_EQ(o.states[0].process_pairs.size(), 8U);
  EXPECT_FALSE(c.units_needed);
  ASSERT_FALSE(c.notes.empty());
  EXPECT_NE(c.notes.back().find("stopped after 8 process pairs"), std::string::npos)
      << c.notes.back();
  EXPECT_NE(c.notes.back().find("its step of 32 ns"), std::string::npos) << c.notes.back();
  // --min-rounds above that holds the stop back.
  const auto later = run_with(names, {pair_on(0, names, 1.0, coarse)}, 10, 40);
  ASSERT_TRUE(later.states[0].comparison) << later.states[0].failure;
  EXPECT_EQ(later.states[0].comparison->outcome, verdict::inconclusive);
  EXPECT_EQ(later.states[0].process_pairs.size(), 10U);
  // A change well beyond the band plus the step is still shown.
  const auto slower = run_with(names, {pair_on(0, names, 1.10, coarse)});
  ASSERT_TRUE(slower.states[0].comparison) << slower.states[0].failure;
  EXPECT_EQ(slower.states[0].comparison->outcome, verdict::slower);
}

TEST(ab_run, a_state_that_decides_leaves_the_rounds_and_the_others_go_on) {
  // ok/same is decided same from round 3; ok/edge (B 1 % slower on a ±1 % band) cannot decide and
  // runs until --max-pairs.
  const std::vector<std::string> names{"ok/same", "ok/edge"};
  // Its 2 % noise keeps the interval wider than the band for all six rounds (deterministically,
  // not on the band's edge by chance).
  const auto o = run_with(
      names,
      {pair_on(0, names, 1.01, {{"STAND_IN_SCALED", "ok/edge"}, {"STAND_IN_NOISE", "0.02"}})}, 3,
      12);
  ASSERT_TRUE(o.states[0].comparison) << o.states[0].failure;
  ASSERT_TRUE(o.states[1].comparison) << o.states[1].failure;
  EXPECT_EQ(o.states[0].comparison->outcome, verdict::same);
  // Round 3 (--min-rounds), or one later when the stand-ins' noise happens to spread wide.
  EXPECT_GE(o.states[0].process_pairs.size(), 3U);
  EXPECT_LE(o.states[0].process_pairs.size(), 4U);
  EXPECT_EQ(o.states[1].comparison->outcome, verdict::inconclusive);
  EXPECT_EQ(o.states[1].process_pairs.size(), 6U); // 12 pairs, 2 a round
  EXPECT_GT(o.states[1].finished_after_s, o.states[0].finished_after_s);
  EXPECT_EQ(o.summary.workers_started, 2 * 6); // a fresh pair for each of the six rounds
}

TEST(ab_run, a_terminal_sees_each_round_and_each_decided_state) {
  const std::vector<std::string> names{"ok/a"};
  ab_run_settings settings;
  settings.pairs = {pair_on(0, names)};
  settings.min_rounds = 3;
  std::ostringstream progress;
  settings.progress = &progress;
  (void)run_ab(states_named(names), settings);
  const std::string text = progress.str();
  EXPECT_NE(text.find("round 1 done after"), std::string::npos) << text;
  EXPECT_NE(text.find("1 of 1 state still undecided"), std::string::npos) << text;
  EXPECT_NE(text.find("[1/1] ok/a: same"), std::string::npos) << text;
  // Decided at --min-rounds or, where the stand-ins' noise (seeded by their pids) leaves the
  // interval wider, a round or two later; the round that decides the last state says nothing more.
  std::smatch decided;
  ASSERT_TRUE(std::regex_search(text, decided, std::regex("after (\\d+) process pairs"))) << text;
  const int rounds = std::stoi(decided[1]);
  EXPECT_GE(rounds, 3) << text;
  EXPECT_NE(text.find(fmt::format("round {} done", rounds - 1)), std::string::npos) << text;
  EXPECT_EQ(text.find(fmt::format("round {} done", rounds)), std::string::npos) << text;
}

TEST(ab_run, kept_workers_read_every_block_as_an_observation) {
  const std::vector<std::string> names{"ok/a", "ok/b"};
  const auto o = run_with(names, {pair_on(0, names, 1.05)}, 3, 40, true);
  for (const auto& s : o.states) {
    ASSERT_TRUE(s.comparison) << s.failure;
    EXPECT_EQ(s.comparison->outcome, verdict::slower);
    EXPECT_EQ(s.comparison->unit, "blocks");
    EXPECT_TRUE(s.process_pairs.empty());
    EXPECT_EQ(s.rounds, 3U);
    EXPECT_EQ(s.a.size(), 6U);
  }
  EXPECT_EQ(o.summary.workers_started, 2); // one pair for the whole run
}

TEST(ab_run, each_round_flips_which_side_goes_first) {
  // The stand-ins log each trial with their side: A B B A in the first round, B A A B in the
  // second, A B B A in the third (side_in_round), one block per round.
  const auto log = std::filesystem::temp_directory_path() /
                   ("kerntime_ab_order_" + std::to_string(::getpid()) + ".log");
  std::filesystem::remove(log);
  const std::vector<std::string> names{"ok/a"};
  ab_pair_slot pair = pair_on(0, names, 1.05, {{"STAND_IN_LOG", log.string()}});
  pair.a.environment.emplace_back("STAND_IN_SIDE", "A");
  pair.b.environment.emplace_back("STAND_IN_SIDE", "B");
  const auto o = run_with(names, {pair}, 3, 6);
  ASSERT_EQ(o.states.size(), 1U);
  EXPECT_EQ(o.states[0].rounds, 3U);
  std::ifstream in(log);
  std::string order;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("trial ")) {
      order += line.substr(6, 1);
    }
  }
  std::filesystem::remove(log);
  EXPECT_EQ(order, "ABBABAABABBA");
}

// The stand-ins' log (STAND_IN_LOG) as one letter per line: s(tart), r(eference), t(rial),
// e(xit); and the
// trials' lines.
struct worker_log {
  std::string kinds;
  std::vector<std::string> trials; // "SIDE STATE PID"
  std::vector<std::string> lines;  // as written
};

worker_log read_log(const std::filesystem::path& path) {
  worker_log log;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    log.lines.push_back(line);
    log.kinds += line.front();
    if (line.starts_with("trial ")) {
      log.trials.push_back(line.substr(6));
    }
  }
  return log;
}

TEST(ab_run, a_round_starts_its_workers_while_the_last_exit_and_begins_its_trials_after) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("kerntime_ab_rounds_" + std::to_string(::getpid()) + ".log");
  std::filesystem::remove(path);
  const std::vector<std::string> names{"ok/a", "ok/b"};
  // No decision before three observations; B is 5 % slower, so both states decide in round 3.
  // Each worker takes 300 ms to exit, as a CUDA context takes its time to end.
  const auto o = run_with(
      names,
      {pair_on(0, names, 1.05, {{"STAND_IN_LOG", path.string()}, {"STAND_IN_EXIT_MS", "300"}})}, 3,
      40);
  const worker_log log = read_log(path);
  std::filesystem::remove(path);
  for (const auto& s : o.states) {
    ASSERT_TRUE(s.comparison) << s.failure;
    EXPECT_EQ(s.comparison->base_units, 3);
  }
  EXPECT_EQ(o.summary.workers_started, 2 * 3);
  // Both workers are ready before a round's first trial (four a block, one block of each state);
  // the next round's pair starts while the last one exits, and its trials wait until both have:
  // no start or exit overlaps a trial.
  const std::string trials(8, 't');
  EXPECT_EQ(log.kinds, "ss" + trials + "ssee" + trials + "ssee" + trials + "ee");
  // The time the trials waited for the last pair to be gone is counted: the last round's exit
  // (300 ms, waited for at the end) and most of the 300 ms in each of rounds 2 and 3 (less the
  // stand-ins' start, a few ms).
  EXPECT_GT(o.summary.exit_wait_seconds, 0.45);
  // The two blocks of a round run in its one process pair; each round's pair is fresh.
  std::set<std::string> pids;
  for (const auto& trial : log.trials) {
    pids.insert(trial.substr(trial.rfind(' ') + 1));
  }
  EXPECT_EQ(pids.size(), 6U);
}

TEST(ab_run, with_start_ahead_the_next_pair_starts_while_this_one_measures_and_none_is_left) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("kerntime_ab_ahead_" + std::to_string(::getpid()) + ".log");
  std::filesystem::remove(path);
  const std::vector<std::string> names{"ok/a", "ok/b"};
  // Each trial takes 100 ms, so a round's eight trials outlast a stand-in's start by far.
  const outcome o = run_with(
      names,
      {pair_on(0, names, 1.05, {{"STAND_IN_LOG", path.string()}, {"STAND_IN_STATE_MS", "100"}})}, 3,
      40, false, true);
  const std::vector<std::string> lines = read_log(path).lines;
  std::filesystem::remove(path);
  for (const auto& s : o.states) {
    ASSERT_TRUE(s.comparison) << s.failure;
    EXPECT_EQ(s.comparison->base_units, 3);
    EXPECT_EQ(s.comparison->outcome, verdict::slower);
  }
  // Three rounds' pairs and one started ahead of a fourth round that never ran.
  EXPECT_EQ(o.summary.workers_started, 2 * 4);
  // Which round each process measured in, from its trials (eight a round).
  std::map<std::string, std::size_t> round_of;
  std::vector<std::size_t> last_trial_line; // per round
  std::size_t trials = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].starts_with("trial ")) {
      const std::size_t round = trials++ / 8;
      round_of.emplace(lines[i].substr(lines[i].rfind(' ') + 1), round);
      last_trial_line.resize(round + 1);
      last_trial_line[round] = i;
    }
  }
  ASSERT_EQ(trials, 24U);
  ASSERT_EQ(round_of.size(), 6U); // each round in a pair of its own
  // Every process of rounds 2 and 3 started before the last trial of the round before it, and
  // every process that measured exited on its own; the pair started ahead of no round was killed.
  std::size_t starts = 0;
  std::size_t exits = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::istringstream words(lines[i]);
    std::string kind;
    std::string pid;
    words >> kind >> pid;
    if (kind == "start") {
      ++starts;
      const auto round = round_of.find(pid);
      if (round != round_of.end() && round->second > 0) {
        EXPECT_LT(i, last_trial_line[round->second - 1]) << lines[i];
      }
    } else if (kind == "exit") {
      ++exits;
      EXPECT_TRUE(round_of.contains(pid)) << lines[i];
    }
  }
  EXPECT_LE(starts, 8U);
  EXPECT_GE(starts, 6U);
  EXPECT_EQ(exits, 6U);
}

// An A/A run of one state whose worker processes sit in a high mode (5 % slower, the reference
// too), 4 in 10 of each side's in a fixed pattern, with `reference_trials` of the reference per
// side per round.
struct referenced_run {
  outcome o;
  ab_reference_summary reference;
  worker_log log;
};

referenced_run run_in_modes(std::size_t reference_trials, const environment& a_extra = {},
                            const environment& b_extra = {}) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("kerntime_ab_reference_" + std::to_string(::getpid()) + ".log");
  std::filesystem::remove(path);
  const std::vector<std::string> names{"ok/launch_bound"};
  ab_pair_slot pair = pair_on(0, names, 1.0,
                              {{"STAND_IN_LOG", path.string()},
                               {"STAND_IN_MODE", "0.4,0.05"},
                               {"STAND_IN_NOISE", "0.002"}});
  // Each side's nth process takes the nth mode of a fixed pattern (4 of 10 high), so every run
  // has rounds whose modes differ from its first ones on and the outcome rests on no draw.
  const auto counter = [&path](const char* side) {
    auto file = path.string() + "." + side + ".count";
    std::filesystem::remove(file);
    return file;
  };
  pair.a.environment.insert(pair.a.environment.end(), {{"STAND_IN_SIDE", "A"},
                                                       {"STAND_IN_MODE_SEQUENCE", "0110010010"},
                                                       {"STAND_IN_MODE_COUNTER", counter("a")}});
  pair.b.environment.insert(pair.b.environment.end(), {{"STAND_IN_SIDE", "B"},
                                                       {"STAND_IN_MODE_SEQUENCE", "1001001100"},
                                                       {"STAND_IN_MODE_COUNTER", counter("b")}});
  pair.a.environment.insert(pair.a.environment.end(), a_extra.begin(), a_extra.end());
  pair.b.environment.insert(pair.b.environment.end(), b_extra.begin(), b_extra.end());
  ab_run_settings settings;
  settings.pairs = {pair};
  settings.min_rounds = 6;
  settings.max_pairs = 80; // 40 rounds
  settings.reference_trials = reference_trials;
  settings.give_up_early = false;
  settings.trial_timeout_s = 30;
  settings.start_timeout_s = 30;
  referenced_run r;
  r.o = run_capturing_events<ab_state_outcome>(
      settings, [&](const ab_run_settings& given, supervision_summary* summary) {
        return run_ab(states_named(names), given, summary, &r.reference);
      });
  r.log = read_log(path);
  for (const char* suffix : {"", ".a.count", ".b.count"}) {
    std::filesystem::remove(path.string() + suffix);
  }
  return r;
}

const environment same_reference{{"STAND_IN_REFERENCE", "ref 1"}};

TEST(ab_run, the_reference_takes_each_process_pairs_mode_out_and_the_state_decides_sooner) {
  const referenced_run with = run_in_modes(4, same_reference, same_reference);
  const referenced_run without = run_in_modes(0, same_reference, same_reference);
  ASSERT_EQ(with.o.states.size(), 1U);
  const ab_state_outcome& s = with.o.states[0];
  ASSERT_TRUE(s.comparison) << s.failure;
  EXPECT_EQ(s.comparison->outcome, verdict::same);
  EXPECT_EQ(s.reference.size(), s.process_pairs.size()); // every round measured it
  ASSERT_TRUE(s.comparison->reference_beta && s.comparison->unit_sd_adjusted);
  EXPECT_NEAR(*s.comparison->reference_beta, 1.0, 0.15); // the state moves as the reference does
  EXPECT_LT(*s.comparison->unit_sd_adjusted, *s.comparison->unit_sd / 3);
  EXPECT_EQ(with.reference.log_ratios.size(), s.process_pairs.size());
  EXPECT_TRUE(with.reference.off_reason.empty());
  // Each round: both workers start on one stream, then the reference's two blocks (8 trials),
  // then the state's block.
  EXPECT_EQ(with.log.kinds.substr(0, 14), "ss" + std::string(8, 'r') + "tttt");
  // Without the reference the modes stay in its rounds: 5 % steps where the reference's part is
  // gone, and `same` at ±1 % takes far more rounds, if any.
  const ab_state_outcome& plain = without.o.states[0];
  ASSERT_TRUE(plain.comparison) << plain.failure;
  EXPECT_TRUE(plain.reference.empty());
  EXPECT_FALSE(plain.comparison->reference_beta);
  EXPECT_EQ(without.log.kinds.find('r'), std::string::npos);
  EXPECT_GT(plain.process_pairs.size(), s.process_pairs.size());
  std::cout << "A/A in two modes: with the reference " << s.process_pairs.size() << " rounds, "
            << to_string(s.comparison->outcome) << "; without " << plain.process_pairs.size()
            << " rounds, " << to_string(plain.comparison->outcome) << '\n';
}

TEST(ab_run, a_reference_that_fails_leaves_its_rounds_unadjusted_and_is_dropped_after_two) {
  const environment failing{same_reference[0], {"STAND_IN_REFERENCE_FAILS", "1"}};
  const referenced_run r = run_in_modes(4, same_reference, failing);
  const ab_state_outcome& s = r.o.states[0];
  ASSERT_TRUE(s.comparison) << s.failure; // the state itself is measured and read
  EXPECT_EQ(r.reference.failed_rounds, 2);
  EXPECT_TRUE(r.reference.log_ratios.empty());
  EXPECT_EQ(r.reference.off_reason, "it failed in 2 rounds in a row");
  // Round 1's entry has none; from round 2 on the run keeps none.
  EXPECT_EQ(s.reference, (std::vector<std::optional<double>>{std::nullopt}));
  EXPECT_FALSE(s.comparison->reference_beta);
  EXPECT_NE(r.o.events.find("kerntime's reference failed on B's worker"), std::string::npos)
      << r.o.events;
  EXPECT_NE(r.o.events.find("is no longer measured on GPU 0"), std::string::npos) << r.o.events;
  // Two rounds asked for it: in round 1 A's trial, then B's, which failed; in round 2 B goes first
  // and fails at once.
  EXPECT_EQ(std::count(r.log.kinds.begin(), r.log.kinds.end(), 'r'), 3);
  // A reference that reads no positive time is a failed one too, not a failed state.
  const environment zero{same_reference[0], {"STAND_IN_REFERENCE_NS", "0"}};
  const referenced_run timeless = run_in_modes(4, same_reference, zero);
  ASSERT_TRUE(timeless.o.states[0].comparison) << timeless.o.states[0].failure;
  EXPECT_EQ(timeless.reference.failed_rounds, 2);
  EXPECT_NE(timeless.o.events.find("a time of 0 ns"), std::string::npos) << timeless.o.events;
}

TEST(ab_run, sides_that_measure_different_references_or_none_are_read_as_measured_saying_why) {
  const referenced_run different =
      run_in_modes(4, same_reference, {{"STAND_IN_REFERENCE", "ref 2"}});
  EXPECT_TRUE(different.reference.asked);
  EXPECT_TRUE(different.reference.log_ratios.empty());
  EXPECT_NE(different.reference.off_reason.find("different references"), std::string::npos)
      << different.reference.off_reason;
  EXPECT_EQ(different.log.kinds.find('r'), std::string::npos); // never asked for
  ASSERT_TRUE(different.o.states[0].comparison);
  EXPECT_FALSE(different.o.states[0].comparison->reference_beta);
  const referenced_run older = run_in_modes(4, same_reference, {});
  EXPECT_NE(older.reference.off_reason.find("B's worker measures no reference"), std::string::npos)
      << older.reference.off_reason;
  EXPECT_TRUE(older.o.states[0].reference.empty());
}

TEST(ab_run, a_device_whose_workers_cannot_start_is_given_up_and_the_other_runs_everything) {
  const std::vector<std::string> names{"ok/a", "ok/b", "ok/c", "ok/d", "ok/e", "ok/f"};
  const auto o = run_with(names, {pair_on(0, names, 1.0, {{"STAND_IN_UNUSABLE", "no GPU 0"}}),
                                  pair_on(1, names, 1.0, {{"STAND_IN_STATE_MS", "2"}})});
  // GPU 0 is given up after its two failed starts; the states it was home to (a, c, e) move to
  // GPU 1, untouched by the failed starts, and every state is compared there.
  EXPECT_NE(o.events.find("did not start: no GPU 0"), std::string::npos) << o.events;
  for (const auto& s : o.states) {
    ASSERT_TRUE(s.comparison) << s.state.name << ": " << s.failure;
    EXPECT_EQ(s.comparison->outcome, verdict::same);
    ASSERT_TRUE(s.device);
    EXPECT_EQ(s.device->ordinal, 1) << s.state.name;
  }
}

TEST(ab_run, a_device_where_only_b_cannot_start_is_given_up_and_the_run_ends) {
  // A starts every time, B never: the failures are B's in a row, not reset by A's starts.
  const std::vector<std::string> names{"ok/a", "ok/b"};
  ab_pair_slot slot = pair_on(0, names);
  slot.b.environment.emplace_back("STAND_IN_UNUSABLE", "B's GPU is held by another process");
  const auto o = run_with(names, {slot});
  for (const auto& s : o.states) {
    EXPECT_FALSE(s.comparison);
    EXPECT_EQ(s.failure_kind, error_kind::device_unavailable);
    EXPECT_NE(s.failure.find("B's GPU is held"), std::string::npos) << s.failure;
  }
}

TEST(ab_run, kept_workers_on_several_devices_live_through_every_round) {
  // Each device's workers are started on its own thread, which lives for the whole run: a worker
  // dies with the thread that started it (PR_SET_PDEATHSIG).
  const std::vector<std::string> names{"ok/a", "ok/b", "ok/c", "ok/d"};
  const environment slow{{"STAND_IN_STATE_MS", "2"}};
  const auto o =
      run_with(names, {pair_on(0, names, 1.05, slow), pair_on(1, names, 1.05, slow)}, 3, 40, true);
  for (const auto& s : o.states) {
    ASSERT_TRUE(s.comparison) << s.state.name << ": " << s.failure;
    EXPECT_EQ(s.comparison->outcome, verdict::slower);
    EXPECT_EQ(s.rounds, 3U);
  }
  EXPECT_EQ(o.summary.workers_started, 4); // one pair per device for the whole run
  EXPECT_EQ(o.summary.faults, 0);
}

TEST(ab_run, a_state_out_of_time_before_its_minimum_of_rounds_is_inconclusive) {
  // B 5 % slower would be decided from round 3; --max-time ends the state after its first round.
  const std::vector<std::string> names{"ok/a"};
  ab_run_settings settings;
  settings.pairs = {pair_on(0, names, 1.05)};
  settings.min_rounds = 3;
  settings.max_time_s = 1e-6;
  const auto o = run_ab(states_named(names), settings);
  ASSERT_TRUE(o[0].comparison) << o[0].failure;
  EXPECT_EQ(o[0].rounds, 1U);
  EXPECT_EQ(o[0].comparison->outcome, verdict::inconclusive);
  EXPECT_FALSE(o[0].comparison->regression);
}

TEST(ab_run, pairs_per_round_that_do_not_divide_the_most_pairs_are_refused) {
  ab_run_settings settings;
  settings.pairs = {pair_on(0, {"ok/a"})};
  settings.max_pairs = 9;
  EXPECT_THROW((void)run_ab(states_named({"ok/a"}), settings), invalid_argument);
  settings.max_pairs = 10;
  settings.pairs_per_round = 3;
  EXPECT_THROW((void)run_ab(states_named({"ok/a"}), settings), invalid_argument);
}

TEST(ab_run, when_no_worker_can_start_every_state_says_why) {
  const std::vector<std::string> names{"ok/a", "ok/b", "ok/c", "ok/d"};
  const auto o = run_with(names, {pair_on(0, names, 1.0, {{"STAND_IN_UNUSABLE", "no driver"}})});
  for (const auto& s : o.states) {
    EXPECT_FALSE(s.comparison);
    EXPECT_EQ(s.failure_kind, error_kind::device_unavailable);
    EXPECT_NE(s.failure.find("no driver"), std::string::npos) << s.failure;
  }
  EXPECT_NE(o.states.back().failure.find("not run: no worker could start"), std::string::npos)
      << o.states.back().failure;
}

TEST(ab_run, a_cuda_fault_fails_that_state_for_that_side_and_the_next_runs_in_a_fresh_worker) {
  const std::vector<std::string> names{"ok/a", "fault/b", "ok/c"};
  const auto o = run_with(names, {pair_on(0, names)});
  EXPECT_TRUE(o.states[0].comparison);
  EXPECT_FALSE(o.states[1].comparison);
  EXPECT_EQ(o.states[1].failed_side, ab_side::a); // A runs first in every block
  EXPECT_EQ(o.states[1].failure_kind, error_kind::cuda_fault);
  ASSERT_TRUE(o.states[2].comparison) << o.states[2].failure;
  EXPECT_EQ(o.states[2].comparison->outcome, verdict::same);
  EXPECT_EQ(o.summary.faults, 1);
  // A pair per round, and once more A's worker after the fault (it exits after one). The ok
  // states decide at --min-rounds 3, or a round later when the stand-ins' random noise (seeded
  // by their process ids) happens to spread three observations wide (a fresh-clone CI run saw 4).
  EXPECT_EQ(o.summary.workers_started, 2 * static_cast<int>(rounds_of(o)) + 1);
  EXPECT_GE(rounds_of(o), 3U);
  EXPECT_LE(rounds_of(o), 5U);
}

TEST(ab_run, a_state_whose_preparations_spread_runs_more_blocks_a_round) {
  // ok/spread's every trial moves by 2 % on its own (no process offset): a block's own spread,
  // which more blocks in a round divide (one block a round could not settle ±1 % by the minimum
  // of 6); ok/quiet's 0.05 % settles at the minimum on one block.
  // That more blocks settle such a state in fewer rounds is round_blocks_test's simulation.
  const std::vector<std::string> names{"ok/spread", "ok/quiet"};
  // A round costs its pair's 40 ms exit, a block a few ms: more blocks pay where they cut rounds.
  const environment spread{
      {"STAND_IN_SCALED", "ok/spread"}, {"STAND_IN_NOISE", "0.02"}, {"STAND_IN_EXIT_MS", "40"}};
  const auto chosen = run_with(names, {pair_on(0, names, 1.0, spread)}, 6, 100);
  const auto& s = chosen.states[0];
  const auto& quiet = chosen.states[1];
  ASSERT_TRUE(s.comparison && quiet.comparison) << s.failure << quiet.failure;
  // A/A: `same` (at ±1 % or a band its spread could settle), or inconclusive at the limit.
  EXPECT_NE(s.comparison->outcome, verdict::slower);
  EXPECT_NE(s.comparison->outcome, verdict::faster);
  EXPECT_EQ(quiet.comparison->outcome, verdict::same);
  EXPECT_EQ(quiet.process_pairs, std::vector<std::size_t>(6, 1));
  // One block a round until the spread is read (4 rounds), then more, 4 at most (8 pairs).
  ASSERT_GE(s.process_pairs.size(), 6U);
  EXPECT_EQ(std::vector<std::size_t>(s.process_pairs.begin(), s.process_pairs.begin() + 4),
            std::vector<std::size_t>(4, 1));
  EXPECT_GT(*std::max_element(s.process_pairs.begin(), s.process_pairs.end()), 1U);
  std::cout << "2 % a trial, blocks per round:";
  for (const std::size_t k : s.process_pairs) {
    std::cout << " " << k;
  }
  std::cout << "\n";
  EXPECT_LE(*std::max_element(s.process_pairs.begin(), s.process_pairs.end()), 4U);
  std::size_t blocks = 0;
  for (const std::size_t k : s.process_pairs) {
    blocks += k;
  }
  EXPECT_EQ(s.a.size(), 2 * blocks);
  EXPECT_EQ(s.b.size(), 2 * blocks);
  EXPECT_EQ(s.comparison->base_units, static_cast<int>(s.process_pairs.size()));
  EXPECT_NE(s.comparison->notes.front().find(fmt::format("{} blocks of A B B A", blocks)),
            std::string::npos)
      << s.comparison->notes.front();
  const auto said =
      std::find_if(s.comparison->notes.begin(), s.comparison->notes.end(),
                   [](const std::string& n) { return n.starts_with("its rounds ran 1 to"); });
  ASSERT_NE(said, s.comparison->notes.end());
  EXPECT_NE(said->find(fmt::format("(of {} in all): a block's own preparations spread by", blocks)),
            std::string::npos)
      << *said;
  // --most-pairs-per-round 2: one block every round.
  const auto one =
      run_with({"ok/spread"}, {pair_on(0, {"ok/spread"}, 1.0, spread)}, 6, 100, false, false, 2);
  ASSERT_FALSE(one.states[0].process_pairs.empty());
  EXPECT_EQ(one.states[0].process_pairs,
            std::vector<std::size_t>(one.states[0].process_pairs.size(), 1));
}

TEST(ab_run, rounds_of_more_blocks_count_as_one_round_against_the_limit) {
  // A/A at 2 % a trial (a pair's exit 40 ms, so more blocks pay from round 5): ±1 % is rarely in
  // reach within 12 rounds (--max-pairs 24 at 2 a round), which end it inconclusive (or `same`
  // at a band its spread could settle) after more than 24 pairs: its later rounds ran more blocks.
  const std::vector<std::string> names{"ok/spread"};
  const environment spread{{"STAND_IN_NOISE", "0.02"}, {"STAND_IN_EXIT_MS", "40"}};
  const auto o = run_with(names, {pair_on(0, names, 1.0, spread)}, 6, 24);
  const auto& s = o.states[0];
  ASSERT_TRUE(s.comparison) << s.failure;
  EXPECT_LE(s.process_pairs.size(), 12U);
  EXPECT_NE(s.comparison->outcome, verdict::slower);
  EXPECT_NE(s.comparison->outcome, verdict::faster);
  std::size_t blocks = 0;
  for (const std::size_t k : s.process_pairs) {
    blocks += k;
  }
  EXPECT_EQ(s.a.size(), 2 * blocks);
  EXPECT_GT(blocks, s.process_pairs.size()) << "no round ran more than one block";
  if (s.comparison->outcome == verdict::inconclusive) {
    EXPECT_EQ(s.process_pairs.size(), 12U); // the limit, in rounds
    EXPECT_GT(s.a.size(), 24U);             // past --max-pairs in pairs
  }
}

TEST(ab_run, most_pairs_per_round_below_the_pairs_per_round_or_odd_are_refused) {
  ab_run_settings settings;
  settings.pairs = {pair_on(0, {"ok/a"})};
  settings.most_pairs_per_round = 1;
  EXPECT_THROW((void)run_ab(states_named({"ok/a"}), settings), invalid_argument);
  settings.most_pairs_per_round = 5;
  EXPECT_THROW((void)run_ab(states_named({"ok/a"}), settings), invalid_argument);
}

TEST(ab_run, the_limit_ends_an_undecidable_state_inconclusive) {
  // B 1 % slower on a ±1 % band: the interval straddles the edge until the limit.
  const std::vector<std::string> names{"ok/edge"};
  // --min-rounds 5 with room for 4: no verdict can come before the limit.
  const auto o = run_with(names, {pair_on(0, names, 1.01)}, 5, 8);
  ASSERT_TRUE(o.states[0].comparison);
  EXPECT_EQ(o.states[0].comparison->outcome, verdict::inconclusive);
  EXPECT_EQ(o.states[0].a.size(), 8U); // 8 pairs: four blocks, one a round
  EXPECT_EQ(o.states[0].b.size(), 8U);
  EXPECT_EQ(o.states[0].process_pairs.size(), 4U);
}

TEST(ab_run, no_device_pair_is_refused) {
  EXPECT_THROW((void)run_ab(states_named({"ok/a"}), ab_run_settings{}), invalid_argument);
}

} // namespace
} // namespace kerntime::detail
