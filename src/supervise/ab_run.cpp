#include "supervise/ab_run.hpp"

#include <poll.h>

#include <barrier>
#include <chrono>
#include <cmath>
#include <csignal>
#include <deque>
#include <memory>
#include <mutex>
#include <ostream>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "compare/round_blocks.hpp"
#include "kerntime/errors.hpp"
#include "supervise/exit_codes.hpp"
#include "supervise/worker_messages.hpp"

namespace kerntime::detail {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point from) {
  return std::chrono::duration<double>(clock_type::now() - from).count();
}

clock_type::time_point after(double seconds) {
  return clock_type::now() +
         std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(seconds));
}

// What one wait for a worker's message gave.
enum class heard { message, ended, timed_out, garbage };

// What one trial asked of a worker gave: its record, or how the worker failed it.
struct trial_answer {
  std::optional<benchmark_run> run;
  std::string failure;
  error_kind kind = error_kind::crashed;
};

// One side's worker on one device: started when needed, asked for one trial at a time, replaced
// after it crashed, hung or faulted.
class side_worker {
public:
  side_worker(const worker_launch& launch, std::string label)
      : launch_(launch), label_(std::move(label)) {}

  [[nodiscard]] const std::string& label() const { return label_; }
  // A worker ended before it was ready saying its flags were bad input: no restart can help.
  [[nodiscard]] bool refused_arguments() const { return refused_arguments_; }
  // Starts that failed in a row (a start that worked resets it).
  [[nodiscard]] int failed_starts() const { return failed_starts_; }
  void count_failed_start(bool failed) { failed_starts_ = failed ? failed_starts_ + 1 : 0; }
  [[nodiscard]] const std::optional<run_device>& device() const { return device_; }

  // Starts the process when none runs, without waiting for it: both sides of a round start at
  // once. A problem starting it is kept for ensure_started.
  void launch(supervision_summary& summary) {
    if (process_ != nullptr || !start_problem_.empty()) {
      return; // running, or started ahead (retire)
    }
    started_ = clock_type::now();
    ready_ = false;
    asked_ = false;
    process_ = spawn(summary, start_problem_);
    if (process_ != nullptr) {
      ++starts_;
    }
  }

  // Empty when the worker is ready; else why it could not start.
  std::string ensure_started(double timeout_s, supervision_summary& summary) {
    launch(summary);
    if (!start_problem_.empty()) {
      return std::exchange(start_problem_, "");
    }
    if (ready_) {
      return "";
    }
    worker_message m;
    switch (next_message(after(timeout_s), m)) {
    case heard::message:
      if (m.what == worker_message::kind::ready) {
        device_ = m.device;
        reference_ = m.reference;
        ready_ = true;
        summary.worker_ready_seconds.push_back(seconds_since(started_));
        return "";
      }
      if (m.what == worker_message::kind::unusable) {
        drop();
        return m.text;
      }
      drop();
      return "it sent a result before saying it was ready";
    case heard::ended: {
      const std::string how = drop();
      if (last_exit_code_ == exit_bad_input) {
        refused_arguments_ = true;
        return fmt::format("it refused the run's flags ({}; its own words are above): {} may be "
                           "built with another kerntime that lacks one of them",
                           how, launch_.argv.front());
      }
      return fmt::format("it ended before it was ready ({}); is {} a kerntime program?", how,
                         launch_.argv.front());
    }
    case heard::timed_out:
      return fmt::format("it was not ready after {:g} s ({})", timeout_s, drop());
    case heard::garbage:
      return fmt::format("it sent a line that is no worker message ({})", drop());
    }
    return "";
  }

  // The reference's identity its worker reported when ready; empty: none.
  [[nodiscard]] const std::string& reference() const { return reference_; }
  // How many processes this side has started: a state's trials and the reference measured under
  // the same count ran in the same process.
  [[nodiscard]] std::size_t starts() const { return starts_; }

  trial_answer trial(std::size_t plan_index, const std::string& name, double timeout_s) {
    return ask(run_command(plan_index, name), timeout_s);
  }
  trial_answer reference_trial(double timeout_s) { return ask(reference_command(), timeout_s); }

  // --start-ahead: starts the next round's process now, while this one still measures; it
  // becomes this side's worker when this one retires. A process that cannot be started here is
  // left to the next round's ordinary start, which reports the problem.
  void launch_ahead(supervision_summary& summary) {
    if (ahead_ != nullptr) {
      return;
    }
    ahead_started_ = clock_type::now();
    std::string ignored; // the ordinary start next round says what went wrong
    ahead_ = spawn(summary, ignored);
  }

  // No more trials: the worker sees the end of its commands and exits, left to do it (while the
  // next round's worker starts: a CUDA context takes longer to make than to end, and both sides
  // are told before either is awaited); see_off() waits for it. A process started ahead takes
  // its place, its start counted from its launch.
  void retire() {
    see_off();
    if (process_ != nullptr) {
      process_->close_commands();
      leaving_.push_back(std::move(process_));
      lines_.clear();
      ready_ = false;
    }
    if (ahead_ != nullptr) {
      process_ = std::move(ahead_);
      started_ = ahead_started_;
      asked_ = false;
      ++starts_;
    }
  }
  // The run is over: the worker exits, and a process started ahead for a round that will not
  // run (still waiting, or already in the worker's place but never asked) is killed; see_off()
  // waits for them.
  void retire_all() {
    if (ahead_ != nullptr) {
      ahead_->kill();
      leaving_.push_back(std::move(ahead_));
    }
    if (process_ != nullptr && !asked_) {
      process_->kill();
      leaving_.push_back(std::move(process_));
    }
    retire();
  }
  // Waits for the retired workers to be gone (each killed after 10 s), so nothing of them
  // overlaps a trial; true when there was one to wait for.
  bool see_off() {
    if (leaving_.empty()) {
      return false;
    }
    const auto deadline = after(10);
    for (auto& leaving : leaving_) {
      while (!leaving->ended() && clock_type::now() < deadline) {
        pollfd fd{.fd = leaving->message_fd(), .events = POLLIN, .revents = 0};
        (void)::poll(&fd, 1, 100);
        (void)leaving->read_lines(); // what it says on its way out is not asked for
      }
      leaving->kill();
      (void)leaving->reap();
    }
    leaving_.clear();
    return true;
  }

private:
  // A new worker process, counted; nullptr with `problem` set when it could not be started.
  std::unique_ptr<worker_process> spawn(supervision_summary& summary, std::string& problem) {
    try {
      auto process = std::make_unique<worker_process>(launch_);
      ++summary.workers_started;
      return process;
    } catch (const error& e) {
      problem = e.what();
      return nullptr;
    }
  }

  trial_answer ask(const std::string& command, double timeout_s) {
    trial_answer answer;
    asked_ = true;
    (void)process_->send(command); // a dead worker reads as ended below
    worker_message m;
    switch (next_message(after(timeout_s), m)) {
    case heard::message:
      if (m.what == worker_message::kind::result) {
        if (m.run.error == error_kind::cuda_fault) {
          drop(); // it exits after a fault; the next trial gets a fresh worker
        }
        answer.run = std::move(m.run);
        return answer;
      }
      answer.failure = fmt::format("its worker sent a message out of turn ({})", drop());
      answer.kind = error_kind::other;
      return answer;
    case heard::ended:
      answer.failure = fmt::format("crashed the worker: {}", drop());
      answer.kind = error_kind::crashed;
      return answer;
    case heard::timed_out:
      answer.failure =
          fmt::format("timed_out after {:g} s (the worker was killed: {})", timeout_s, drop());
      answer.kind = error_kind::timed_out;
      return answer;
    case heard::garbage:
      answer.failure = fmt::format("its worker sent a line that is no message ({})", drop());
      answer.kind = error_kind::other;
      return answer;
    }
    return answer;
  }

  heard next_message(clock_type::time_point deadline, worker_message& m) {
    for (;;) {
      if (!lines_.empty()) {
        const std::string line = std::move(lines_.front());
        lines_.pop_front();
        try {
          m = parse_worker_message(line);
          return heard::message;
        } catch (const invalid_argument&) {
          return heard::garbage;
        }
      }
      if (process_->ended()) {
        return heard::ended;
      }
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_type::now());
      if (left.count() <= 0) {
        return heard::timed_out;
      }
      pollfd fd{.fd = process_->message_fd(), .events = POLLIN, .revents = 0};
      (void)::poll(&fd, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
      for (auto& line : process_->read_lines()) {
        lines_.push_back(std::move(line));
      }
    }
  }

  // Kills and reaps the worker; says how it ended.
  std::string drop() {
    if (process_ == nullptr) {
      return "";
    }
    process_->kill();
    std::string how = process_->reap();
    last_exit_code_ = process_->exit_code();
    process_.reset();
    lines_.clear();
    ready_ = false;
    return how;
  }

  const worker_launch& launch_;
  std::string label_;
  std::unique_ptr<worker_process> process_;
  std::vector<std::unique_ptr<worker_process>> leaving_; // retired, not yet seen off
  std::unique_ptr<worker_process> ahead_;                // --start-ahead: the next round's
  clock_type::time_point ahead_started_;
  std::deque<std::string> lines_;
  std::optional<run_device> device_;
  std::string reference_;
  std::size_t starts_ = 0;
  clock_type::time_point started_;
  bool ready_ = false;
  bool asked_ = false; // the current process was sent a command
  std::string start_problem_;
  std::optional<int> last_exit_code_;
  bool refused_arguments_ = false;
  int failed_starts_ = 0;
};

ab_trials trials_of(const ab_state_outcome& o) {
  ab_trials t;
  for (const auto& run : o.a) {
    t.a.push_back(&*run.result);
  }
  for (const auto& run : o.b) {
    t.b.push_back(&*run.result);
  }
  t.process_pairs = o.process_pairs;
  t.reference = o.reference;
  return t;
}

// What one round did to a state.
enum class round_outcome { more, finished, no_worker };

// A worker that cannot start this often in a row gives its device up.
constexpr int start_attempts = 2;
// A reference that fails in this many rounds in a row is not asked for again.
constexpr int reference_attempts = 2;

class pair_runner {
public:
  pair_runner(const ab_pair_slot& slot, const ab_run_settings& settings, std::mutex& output)
      : slot_(slot), settings_(settings), options_(settings.options), output_(output),
        a_(slot.a, slot.label + ", A"), b_(slot.b, slot.label + ", B") {
    // An observation is a round's process pair, or with kept workers a block.
    options_.min_observations =
        settings.min_rounds *
        (settings.keep_workers ? std::max<std::size_t>(1, settings.pairs_per_round / 2) : 1);
    // The observations --max-pairs allows (rounds, or blocks with kept workers), with the margin:
    // a state whose spread needs more even at the most favourable ratio stops early.
    const std::size_t most = settings.keep_workers ? settings.max_pairs / 2
                                                   : settings.max_pairs / settings.pairs_per_round;
    options_.give_up_beyond = settings.give_up_early ? give_up_margin * most : 0;
    options_.widest_band = settings.give_up_early ? widest_band_factor * options_.threshold : 0;
    options_.widen_within = most;
    options_.most_blocks = settings.keep_workers ? 1 : settings.most_pairs_per_round / 2;
  }

  [[nodiscard]] bool given_up() const {
    // Counted per side: one side that always starts must not reset the other's failures.
    return a_.failed_starts() >= start_attempts || b_.failed_starts() >= start_attempts ||
           refused_arguments();
  }
  [[nodiscard]] bool refused_arguments() const {
    return a_.refused_arguments() || b_.refused_arguments();
  }
  [[nodiscard]] const std::string& given_up_because() const { return last_start_problem_; }
  supervision_summary& summary() { return summary_; }

  // Starts both sides' workers of this round at once, the side that goes first alternating from
  // round to round (side_in_round). The launch order follows this device's rounds, a block's
  // order each state's own (run_round): they differ only for a state that missed a round here
  // (a worker that did not start) or came from a device that gave up, and then that state's
  // blocks still alternate, only the side launched first may go second in them.
  void begin_round(std::size_t states) {
    states_in_round_ = states;
    const ab_side first = first_in_round(rounds_begun_++);
    worker_of(first).launch(summary_);
    worker_of(other_side(first)).launch(summary_);
  }

  // Before the round's first state, once both workers are ready: the reference's blocks of
  // A B B A in this round's process pair (ab_run_settings::reference_trials), whose mean
  // log-ratio adjusts every state's observation of the round. Decided at the first ready pair:
  // only where both sides report the same reference.
  void measure_reference() {
    if (reference_round_ == rounds_begun_) {
      return; // measured (or tried) this round
    }
    reference_round_ = rounds_begun_;
    round_reference_.reset();
    if (settings_.reference_trials == 0 || settings_.keep_workers) {
      return;
    }
    const std::size_t round = rounds_begun_ - 1;
    const auto started = clock_type::now();
    if (!reference_decided_) {
      reference_decided_ = true;
      decide_reference();
    }
    if (!reference_on_) {
      return;
    }
    round_reference_ = reference_log_ratio(round);
    reference_.seconds += seconds_since(started);
    if (round_reference_) {
      reference_starts_ = {a_.starts(), b_.starts()};
      reference_.log_ratios.push_back(*round_reference_);
      failed_in_a_row_ = 0;
    } else if (++failed_in_a_row_ == reference_attempts) {
      reference_on_ = false; // the rounds from here on go unadjusted, without asking again
      reference_.off_reason = fmt::format("it failed in {} rounds in a row", reference_attempts);
      event(fmt::format("kerntime's reference is no longer measured on {}: {}", slot_.label,
                        reference_.off_reason));
    }
  }

  [[nodiscard]] const ab_reference_summary& reference_summary() const { return reference_; }

  // Runs this round's blocks of one state: `finished` when the state is decided, at a limit,
  // failed or skipped (its comparison made when both sides measured it), `no_worker` when a
  // side's worker did not start (the state is untouched: another round runs it, maybe on another
  // device).
  round_outcome run_round(ab_state_outcome& o) {
    const ab_side first = first_in_round(o.rounds);
    for (const ab_side which : {first, other_side(first)}) {
      if (!start(which).empty()) {
        return round_outcome::no_worker;
      }
    }
    see_off_retired();
    measure_reference();
    if (settings_.start_ahead && !settings_.keep_workers) {
      // The next round's pair starts while this one measures, in the order that round launches.
      const ab_side next_first = first_in_round(rounds_begun_);
      worker_of(next_first).launch_ahead(summary_);
      worker_of(other_side(next_first)).launch_ahead(summary_);
    }
    const auto start = clock_type::now();
    // Whole rounds up to --max-pairs (run_ab checked that they divide it), more blocks where
    // the state's last round chose them.
    const std::size_t blocks = blocks_of(o);
    for (std::size_t k = 0; k < blocks * trials_per_block; ++k) {
      if (!run_trial(o, side_in_round(o.rounds, k))) {
        o.seconds += seconds_since(start);
        return round_outcome::finished;
      }
    }
    o.seconds += seconds_since(start);
    ++o.rounds;
    if (!settings_.keep_workers) {
      o.process_pairs.push_back(blocks);
      if (reference_on_) {
        // Rounds before the reference was decided had none; a worker replaced since the
        // reference ran is another process, whose mode the reference did not see.
        o.reference.resize(o.process_pairs.size() - 1);
        const bool same_pair =
            round_reference_ && reference_starts_ == std::pair{a_.starts(), b_.starts()};
        o.reference.push_back(same_pair ? round_reference_ : std::nullopt);
      }
    }
    std::optional<ab_end> end;
    ab_options options = options_of(o);
    ab_reading reading = read_ab(trials_of(o), options);
    if (reading.decision == ab_decision::undecided && reading.reachable_band) {
      widen(o, reading);
      options = options_of(o);
      reading = read_ab(trials_of(o), options);
    }
    if (reading.decision != ab_decision::undecided) {
      end = ab_end::decided;
    } else if (reading.no_verdict_reachable) {
      end = ab_end::no_verdict_reachable;
    } else if (reading.out_of_reach) {
      end = ab_end::out_of_reach;
    } else if (settings_.keep_workers ? o.a.size() >= settings_.max_pairs
                                      : o.rounds >= most_rounds()) {
      end = ab_end::max_pairs;
    } else if (o.seconds >= settings_.max_time_s) {
      end = ab_end::max_time;
    }
    if (end) {
      o.comparison = compare_ab_state(o.state.name, trials_of(o), options, *end);
    } else if (!reading.projected_blocks.empty()) {
      o.next_blocks = blocks_for_next_round(reading.projected_blocks, o.rounds,
                                            settings_.min_rounds, costs_of(o));
    }
    return end ? round_outcome::finished : round_outcome::more;
  }

  // The round is over: the next one runs in a fresh process pair, unless workers are kept. The
  // pair exits while the next one starts; its first trial waits until the old pair is gone.
  void end_round() {
    if (!settings_.keep_workers) {
      see_off_retired(); // an earlier pair not yet seen off (its round ran no trial): waited here
      a_.retire();
      b_.retire();
    }
  }

  void stop() {
    a_.retire_all();
    b_.retire_all();
    see_off_retired();
  }

  // The last round's workers, retired while this round's started, are gone before any trial;
  // a pair with no state this round sees them off at once.
  void see_off_retired() {
    const auto asked = clock_type::now();
    const bool a_left = a_.see_off();
    const bool b_left = b_.see_off();
    if (a_left || b_left) {
      summary_.exit_wait_seconds += seconds_since(asked);
    }
  }

private:
  // The blocks `o`'s next round runs: --pairs-per-round's, or more where its last round chose
  // them.
  [[nodiscard]] std::size_t blocks_of(const ab_state_outcome& o) const {
    return std::max(settings_.pairs_per_round / (trials_per_block / 2), o.next_blocks);
  }
  // The rounds a state may run in: --max-pairs at --pairs-per-round (more blocks in a round
  // count as one round).
  [[nodiscard]] std::size_t most_rounds() const {
    return settings_.max_pairs / settings_.pairs_per_round;
  }

  // What one more round of `o` costs so far: this pair's wait for its workers to start and exit
  // and its reference, per round begun, shared by the states of this round (the run goes on
  // while any is open, so a state's fewer rounds save the round's start only where it is the
  // last: H100 recordings simulated, bench/ab/round_blocks_sim.py --shared), and the state's own
  // trials per block.
  [[nodiscard]] round_costs costs_of(const ab_state_outcome& o) const {
    const std::size_t blocks = blocks_in_all(o.process_pairs);
    const double rounds = static_cast<double>(std::max<std::size_t>(1, rounds_begun_));
    const double sharing = static_cast<double>(std::max<std::size_t>(1, states_in_round_));
    return {.round_seconds =
                (summary_.start_wait_seconds + summary_.exit_wait_seconds + reference_.seconds) /
                rounds / sharing,
            .block_seconds = blocks == 0 ? 0 : o.seconds / static_cast<double>(blocks)};
  }

  // The reference's trials of this round, in blocks of A B B A: their mean log-ratio, or none
  // when a trial failed (said as an event).
  std::optional<double> reference_log_ratio(std::size_t round) {
    std::vector<double> block_ratios;
    std::vector<double> a_times;
    std::vector<double> b_times;
    for (std::size_t k = 0; k < settings_.reference_trials * 2; ++k) {
      const ab_side which = side_in_round(round, k);
      trial_answer answer = worker_of(which).reference_trial(settings_.trial_timeout_s);
      const bool measured =
          answer.run && answer.run->status == run_status::ok && answer.run->result;
      const double ns = measured ? preparation_time_ns(*answer.run->result) : 0;
      if (!(std::isfinite(ns) && ns > 0)) {
        ++reference_.failed_rounds;
        event(fmt::format("kerntime's reference failed on {}'s worker on {} ({}); this round's "
                          "states go unadjusted",
                          which == ab_side::a ? "A" : "B", slot_.label,
                          !answer.run ? answer.failure
                          : measured  ? fmt::format("a time of {} ns", ns)
                                      : answer.run->message));
        return std::nullopt;
      }
      (which == ab_side::a ? a_times : b_times).push_back(ns);
      if (a_times.size() == 2 && b_times.size() == 2) {
        block_ratios.push_back(block_log_ratio(trial_order::balanced,
                                               {a_times[0], b_times[0], b_times[1], a_times[1]}));
        a_times.clear();
        b_times.clear();
      }
    }
    double sum = 0;
    for (const double x : block_ratios) {
      sum += x;
    }
    return sum / static_cast<double>(block_ratios.size());
  }

  // Whether the run adjusts by the reference: both sides must measure the same one (the run's
  // last lines say why not, reference_line in cli/ab_command.cpp).
  void decide_reference() {
    const std::string& a = a_.reference();
    const std::string& b = b_.reference();
    if (a.empty() && b.empty()) {
      reference_.off_reason = "neither side's worker measures one (programs built with an older "
                              "kerntime)";
    } else if (a.empty() || b.empty()) {
      reference_.off_reason =
          fmt::format("{}'s worker measures no reference (a program built with an older kerntime)",
                      a.empty() ? "A" : "B");
    } else if (a != b) {
      reference_.off_reason = fmt::format("A and B measure different references (\"{}\" and "
                                          "\"{}\"): their ratio need not be 1",
                                          a, b);
    } else {
      reference_on_ = true;
    }
  }

  // The options a state is read with: the run's, with `same` at the band it went on at when it
  // was widened.
  [[nodiscard]] ab_options options_of(const ab_state_outcome& o) const {
    ab_options options = options_;
    options.next_blocks = blocks_of(o);
    if (o.band) {
      options.same_band = *o.band;
      options.band_reason = o.band_reason;
    }
    return options;
  }

  // The state goes on with `same` at the band its spread could settle (reading.reachable_band).
  void widen(ab_state_outcome& o, const ab_reading& reading) const {
    const std::string unit = settings_.keep_workers ? "blocks" : "process pairs";
    o.band = *reading.reachable_band;
    o.band_reason = fmt::format(
        "spread floor: its {} spread so widely that `same` at ±{:g} % would take {} of them, "
        "more than the {} that --max-pairs allows; `same` judged at ±{:g} % instead, the "
        "narrowest band that spread could settle within them (`slower` and `faster` still at "
        "±{:g} %; --run-to-limits keeps `same` there too)",
        unit, 100 * options_.threshold,
        reading.observations_needed ? fmt::format("~{}", *reading.observations_needed)
                                    : std::string("more"),
        options_.widen_within, 100 * *o.band, 100 * options_.threshold);
  }

  void event(const std::string& line) const {
    if (settings_.events != nullptr) {
      const std::lock_guard guard(output_);
      *settings_.events << "kerntime: " << line << '\n' << std::flush;
    }
  }

  // Makes sure one side's worker is ready; empty when it is, else why not (said as an event, and
  // counted towards giving the device up).
  std::string start(ab_side which) {
    side_worker& worker = worker_of(which);
    const auto asked = clock_type::now();
    const std::string problem = worker.ensure_started(settings_.start_timeout_s, summary_);
    summary_.start_wait_seconds += seconds_since(asked);
    if (!problem.empty()) {
      worker.count_failed_start(true);
      last_start_problem_ = fmt::format("{}'s worker on {} did not start: {}",
                                        which == ab_side::a ? "A" : "B", slot_.label, problem);
      event(last_start_problem_);
      return last_start_problem_;
    }
    worker.count_failed_start(false);
    return "";
  }

  // One trial of one side; false when the state cannot go on (the failure is recorded).
  bool run_trial(ab_state_outcome& o, ab_side which) {
    side_worker& worker = worker_of(which);
    const char* side_name = which == ab_side::a ? "A" : "B";
    // A worker that faulted on an earlier state of this round starts afresh; one that does not
    // start now fails the state, whose block is begun.
    if (std::string problem = start(which); !problem.empty()) {
      o.failure = std::move(problem);
      o.failure_kind = error_kind::device_unavailable;
      o.failed_side = which;
      return false;
    }
    trial_answer answer = worker.trial(which == ab_side::a ? o.state.a_index : o.state.b_index,
                                       o.state.name, settings_.trial_timeout_s);
    if (!answer.run) {
      ++summary_.faults;
      o.failure = fmt::format("{}: {}", side_name, answer.failure);
      o.failure_kind = answer.kind;
      o.failed_side = which;
      event(fmt::format("{} {} on {}; a fresh worker runs the next state", o.state.name, o.failure,
                        slot_.label));
      return false;
    }
    benchmark_run& run = *answer.run;
    if (run.status == run_status::skipped) {
      o.skipped = true;
      o.failed_side = which;
      o.failure = fmt::format("{}: skipped: {}", side_name, run.message);
      return false;
    }
    if (run.status != run_status::ok || !run.result) {
      if (run.error == error_kind::cuda_fault) {
        ++summary_.faults;
      }
      o.failure = fmt::format("{}: failed ({}): {}", side_name,
                              run.error ? to_string(*run.error) : to_string(error_kind::other),
                              run.message);
      o.failure_kind = run.error.value_or(error_kind::other);
      o.failed_side = which;
      return false;
    }
    o.device = run.device ? run.device : worker.device();
    (which == ab_side::a ? o.a : o.b).push_back(std::move(run));
    return true;
  }

  side_worker& worker_of(ab_side which) { return which == ab_side::a ? a_ : b_; }

  const ab_pair_slot& slot_;
  const ab_run_settings& settings_;
  ab_options options_; // the settings' own, with the minimum of observations --min-rounds makes
  std::mutex& output_; // the events and progress streams, shared by the device pairs
  side_worker a_;
  side_worker b_;
  supervision_summary summary_;
  std::string last_start_problem_;
  std::size_t rounds_begun_ = 0;
  std::size_t states_in_round_ = 1; // the states this pair runs in the round begun last
  // The reference: whether this run uses it (decided at the first ready pair), its log-ratio in
  // the current round and the worker starts it ran under, and what became of it.
  bool reference_decided_ = false;
  int failed_in_a_row_ = 0;
  std::size_t reference_round_ = 0; // rounds_begun_ when the reference last ran (or was tried)
  bool reference_on_ = false;
  std::optional<double> round_reference_;
  std::pair<std::size_t, std::size_t> reference_starts_;
  ab_reference_summary reference_;
};

std::string progress_line(const ab_state_outcome& o, std::size_t done, std::size_t total) {
  if (!o.comparison) {
    return fmt::format("[{}/{}] {}: not compared, {}", done, total, o.state.name, o.failure);
  }
  const auto& c = *o.comparison;
  return fmt::format(
      "[{}/{}] {}: {}{}, B/A {:.4f} [{:.4f}, {:.4f}] after {} {}, {:.1f} s of trials", done, total,
      o.state.name, verdict_text(c),
      o.band ? fmt::format(" at ±{:g} % (its spread's floor)", 100 * *o.band) : "", c.ratio,
      c.ratio_low, c.ratio_high, c.base_units, c.unit, o.seconds);
}

// Which device pair runs each open state this round: its own (state i on pair i mod pairs), or,
// when that pair gave up, the live pairs in turn. Empty when no pair is left.
std::vector<std::vector<std::size_t>>
share_out(const std::vector<std::size_t>& open,
          const std::vector<std::unique_ptr<pair_runner>>& pairs) {
  std::vector<std::size_t> live;
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    if (!pairs[p]->given_up()) {
      live.push_back(p);
    }
  }
  std::vector<std::vector<std::size_t>> shares(pairs.size());
  if (live.empty()) {
    return {};
  }
  std::size_t next_live = 0;
  for (const std::size_t i : open) {
    const std::size_t home = i % pairs.size();
    const std::size_t p = pairs[home]->given_up() ? live[next_live++ % live.size()] : home;
    shares[p].push_back(i);
  }
  return shares;
}

} // namespace

std::vector<ab_state_outcome> run_ab(const std::vector<ab_state>& states,
                                     const ab_run_settings& settings, supervision_summary* summary,
                                     ab_reference_summary* reference) {
  if (settings.pairs.empty()) {
    throw invalid_argument("run_ab needs at least one device with a worker per side");
  }
  if (settings.reference_trials % 2 != 0) {
    throw invalid_argument(fmt::format("run_ab needs an even number of reference trials per side "
                                       "({}): whole blocks of A B B A",
                                       settings.reference_trials));
  }
  if (settings.pairs_per_round < 2 || settings.pairs_per_round % 2 != 0 ||
      settings.max_pairs % settings.pairs_per_round != 0) {
    throw invalid_argument(fmt::format("run_ab needs an even number of pairs per round ({}) that "
                                       "divides the most pairs ({})",
                                       settings.pairs_per_round, settings.max_pairs));
  }
  if (settings.most_pairs_per_round < settings.pairs_per_round ||
      settings.most_pairs_per_round % 2 != 0) {
    throw invalid_argument(fmt::format("run_ab needs an even most pairs per round ({}), at least "
                                       "the pairs per round ({})",
                                       settings.most_pairs_per_round, settings.pairs_per_round));
  }
  // A pipe to a dead worker must fail a write, not end the supervisor.
  const auto previous = std::signal(SIGPIPE, SIG_IGN);
  const auto run_start = clock_type::now();
  std::vector<ab_state_outcome> outcomes(states.size());
  std::vector<std::size_t> open;
  for (std::size_t i = 0; i < states.size(); ++i) {
    outcomes[i].state = states[i];
    open.push_back(i);
  }
  std::mutex output_lock;
  std::vector<std::unique_ptr<pair_runner>> pairs;
  for (const auto& slot : settings.pairs) {
    pairs.push_back(std::make_unique<pair_runner>(slot, settings, output_lock));
  }
  std::size_t done = 0;
  std::vector<bool> finished(states.size(), false);
  // One round: each device pair starts a fresh process pair and runs its share of the open
  // states, the pairs in parallel on threads of their own that live for the whole run (a worker
  // dies with the thread that started it: PR_SET_PDEATHSIG); the round ends when all have.
  const auto run_share = [&](pair_runner& pair, const std::vector<std::size_t>& share) {
    if (share.empty()) {
      pair.see_off_retired(); // no trial here this round: the last pair need not linger
      return;
    }
    pair.begin_round(share.size());
    for (const std::size_t i : share) {
      if (pair.given_up()) {
        break; // its states go to a live pair next round
      }
      ab_state_outcome& o = outcomes[i];
      round_outcome outcome = round_outcome::finished;
      try {
        outcome = pair.run_round(o);
      } catch (const error& e) { // e.g. a preparation whose median is no positive time
        o.failure = fmt::format("not compared: {}", e.what());
        o.failure_kind = error_kind::other;
        o.comparison.reset();
      }
      if (outcome == round_outcome::no_worker) {
        break; // this device's round is over; its states run again next round, maybe elsewhere
      }
      if (outcome == round_outcome::more) {
        continue;
      }
      const std::lock_guard guard(output_lock);
      finished[i] = true;
      o.finished_after_s = seconds_since(run_start);
      ++done;
      if (settings.progress != nullptr) {
        *settings.progress << progress_line(o, done, states.size()) << '\n' << std::flush;
      }
    }
    pair.end_round();
  };
  std::size_t rounds = 0;
  std::vector<std::vector<std::size_t>> shares = share_out(open, pairs);
  bool over = shares.empty();
  // Runs once per round, on one thread, while the others wait: what is left, and who runs it.
  const auto next_round = [&]() noexcept {
    std::erase_if(open, [&](std::size_t i) { return finished[i]; });
    ++rounds;
    if (settings.progress != nullptr && !open.empty()) {
      *settings.progress << fmt::format("round {} done after {:.1f} s: {} of {} state{} still "
                                        "undecided\n",
                                        rounds, seconds_since(run_start), open.size(),
                                        states.size(), states.size() == 1 ? "" : "s")
                         << std::flush;
    }
    shares = open.empty() ? std::vector<std::vector<std::size_t>>{} : share_out(open, pairs);
    over = shares.empty();
  };
  std::barrier round_end(static_cast<std::ptrdiff_t>(pairs.size()), next_round);
  const auto serve = [&](std::size_t p) {
    while (!over) {
      run_share(*pairs[p], shares[p]);
      round_end.arrive_and_wait();
    }
    pairs[p]->stop();
  };
  std::vector<std::thread> others;
  for (std::size_t p = 1; p < pairs.size(); ++p) {
    others.emplace_back(serve, p);
  }
  serve(0);
  for (auto& t : others) {
    t.join();
  }
  // Each device's thread stopped its own workers (serve).
  std::string why;
  bool refused = true;
  for (auto& pair : pairs) {
    if (pair->given_up()) {
      why += (why.empty() ? "" : "; ") + pair->given_up_because();
    }
    refused = refused && pair->refused_arguments();
    if (summary != nullptr) {
      summary->workers_started += pair->summary().workers_started;
      summary->faults += pair->summary().faults;
      summary->start_wait_seconds += pair->summary().start_wait_seconds;
      summary->exit_wait_seconds += pair->summary().exit_wait_seconds;
      summary->worker_ready_seconds.insert(summary->worker_ready_seconds.end(),
                                           pair->summary().worker_ready_seconds.begin(),
                                           pair->summary().worker_ready_seconds.end());
    }
  }
  if (reference != nullptr) {
    reference->asked = settings.reference_trials > 0 && !settings.keep_workers;
    for (const auto& pair : pairs) {
      const ab_reference_summary& r = pair->reference_summary();
      reference->log_ratios.insert(reference->log_ratios.end(), r.log_ratios.begin(),
                                   r.log_ratios.end());
      reference->failed_rounds += r.failed_rounds;
      reference->seconds += r.seconds;
      if (reference->off_reason.empty()) {
        reference->off_reason = r.off_reason;
      }
    }
  }
  std::signal(SIGPIPE, previous);
  for (const std::size_t i : open) { // no device pair was left to finish them
    auto& o = outcomes[i];
    o.failure = fmt::format("{}: no worker could start ({})",
                            o.a.empty() ? "not run" : "not finished", why);
    // Every device's workers refused the flags: bad input, not a device problem.
    o.failure_kind = refused ? error_kind::invalid_argument : error_kind::device_unavailable;
    o.finished_after_s = seconds_since(run_start);
  }
  return outcomes;
}

} // namespace kerntime::detail
