#include "supervise/ab_run.hpp"

#include <poll.h>

#include <chrono>
#include <csignal>
#include <deque>
#include <memory>
#include <mutex>
#include <ostream>
#include <thread>

#include <fmt/format.h>

#include "kerntime/errors.hpp"
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
  [[nodiscard]] const std::optional<run_device>& device() const { return device_; }

  // Empty when the worker is ready; else why it could not start.
  std::string ensure_started(double timeout_s, supervision_summary& summary) {
    if (process_ != nullptr) {
      return "";
    }
    const auto started = clock_type::now();
    try {
      process_ = std::make_unique<worker_process>(launch_);
    } catch (const error& e) {
      return e.what();
    }
    ++summary.workers_started;
    worker_message m;
    switch (next_message(after(timeout_s), m)) {
    case heard::message:
      if (m.what == worker_message::kind::ready) {
        device_ = m.device;
        summary.worker_ready_seconds.push_back(seconds_since(started));
        return "";
      }
      if (m.what == worker_message::kind::unusable) {
        drop();
        return m.text;
      }
      drop();
      return "it sent a result before saying it was ready";
    case heard::ended:
      return fmt::format("it ended before it was ready ({}); is {} a kerntime program?", drop(),
                         launch_.argv.front());
    case heard::timed_out:
      return fmt::format("it was not ready after {:g} s ({})", timeout_s, drop());
    case heard::garbage:
      return fmt::format("it sent a line that is no worker message ({})", drop());
    }
    return "";
  }

  trial_answer trial(std::size_t plan_index, const std::string& name, double timeout_s) {
    trial_answer answer;
    (void)process_->send(run_command(plan_index, name)); // a dead worker reads as ended below
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

  // No more trials: the worker sees the end of its commands and exits.
  void stop() {
    if (process_ != nullptr) {
      process_->close_commands();
      worker_message ignored;
      (void)next_message(after(10), ignored);
      drop();
    }
  }

private:
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
    process_.reset();
    lines_.clear();
    return how;
  }

  const worker_launch& launch_;
  std::string label_;
  std::unique_ptr<worker_process> process_;
  std::deque<std::string> lines_;
  std::optional<run_device> device_;
};

ab_trials trials_of(const ab_state_outcome& o) {
  ab_trials t;
  for (const auto& run : o.a) {
    t.a.push_back(&*run.result);
  }
  for (const auto& run : o.b) {
    t.b.push_back(&*run.result);
  }
  return t;
}

// A worker that cannot start this often in a row gives its device up.
constexpr int start_attempts = 2;

class pair_runner {
public:
  pair_runner(const ab_pair_slot& slot, const ab_run_settings& settings)
      : slot_(slot), settings_(settings), a_(slot.a, slot.label + ", A"),
        b_(slot.b, slot.label + ", B") {}

  [[nodiscard]] bool given_up() const { return failed_starts_ >= start_attempts; }
  [[nodiscard]] const std::string& given_up_because() const { return last_start_problem_; }
  supervision_summary& summary() { return summary_; }

  void measure(ab_state_outcome& o) {
    const auto start = clock_type::now();
    ab_end end = ab_end::decided;
    for (std::size_t k = 0;; ++k) {
      if (k % trials_per_block == 0 && k > 0) {
        if (k / 2 >= settings_.min_pairs &&
            read_ab(trials_of(o), settings_.options).decision != ab_decision::undecided) {
          end = ab_end::decided;
          break;
        }
        if (k / 2 >= settings_.max_pairs) {
          end = ab_end::max_pairs;
          break;
        }
        if (seconds_since(start) >= settings_.max_time_s) {
          end = ab_end::max_time;
          break;
        }
        if (settings_.pairs_per_worker > 0 && (k / 2) % settings_.pairs_per_worker == 0) {
          stop(); // the next trials run in a fresh process pair
        }
      }
      const ab_side which = side_of_trial(trial_order::balanced, k);
      if (!run_trial(o, which)) {
        break;
      }
    }
    o.seconds = seconds_since(start);
    if (o.failure.empty()) {
      o.comparison = compare_ab_state(o.state.name, trials_of(o), settings_.options, end);
    }
  }

  void stop() {
    a_.stop();
    b_.stop();
  }

private:
  void event(const std::string& line) const {
    if (settings_.events != nullptr) {
      *settings_.events << "kerntime: " << line << '\n' << std::flush;
    }
  }

  // One trial of one side; false when the state cannot go on (the failure is recorded).
  bool run_trial(ab_state_outcome& o, ab_side which) {
    side_worker& worker = which == ab_side::a ? a_ : b_;
    const char* side_name = which == ab_side::a ? "A" : "B";
    if (const std::string problem = worker.ensure_started(settings_.start_timeout_s, summary_);
        !problem.empty()) {
      ++failed_starts_;
      last_start_problem_ =
          fmt::format("{}'s worker on {} did not start: {}", side_name, slot_.label, problem);
      o.failure = last_start_problem_;
      o.failure_kind = error_kind::device_unavailable;
      o.failed_side = which;
      event(o.failure);
      return false;
    }
    failed_starts_ = 0;
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

  const ab_pair_slot& slot_;
  const ab_run_settings& settings_;
  side_worker a_;
  side_worker b_;
  supervision_summary summary_;
  int failed_starts_ = 0;
  std::string last_start_problem_;
};

std::string progress_line(const ab_state_outcome& o, std::size_t done, std::size_t total) {
  if (!o.comparison) {
    return fmt::format("[{}/{}] {}: not compared, {}", done, total, o.state.name, o.failure);
  }
  const auto& c = *o.comparison;
  return fmt::format("[{}/{}] {}: {}, B/A {:.4f} [{:.4f}, {:.4f}] after {} blocks, {:.1f} s", done,
                     total, o.state.name, verdict_text(c), c.ratio, c.ratio_low, c.ratio_high,
                     c.base_units, o.seconds);
}

} // namespace

std::vector<ab_state_outcome> run_ab(const std::vector<ab_state>& states,
                                     const ab_run_settings& settings,
                                     supervision_summary* summary) {
  if (settings.pairs.empty()) {
    throw invalid_argument("run_ab needs at least one device with a worker per side");
  }
  // A pipe to a dead worker must fail a write, not end the supervisor.
  const auto previous = std::signal(SIGPIPE, SIG_IGN);
  std::vector<ab_state_outcome> outcomes(states.size());
  for (std::size_t i = 0; i < states.size(); ++i) {
    outcomes[i].state = states[i];
  }
  std::mutex lock;
  std::size_t next = 0;
  std::size_t done = 0;
  std::vector<bool> taken(states.size(), false);
  std::vector<std::string> given_up;
  const auto serve = [&](const ab_pair_slot& slot) {
    pair_runner pair(slot, settings);
    for (;;) {
      std::size_t i = 0;
      {
        const std::lock_guard guard(lock);
        if (next >= states.size() || pair.given_up()) {
          break;
        }
        i = next++;
        taken[i] = true;
      }
      pair.measure(outcomes[i]);
      const std::lock_guard guard(lock);
      ++done;
      if (settings.progress != nullptr) {
        *settings.progress << progress_line(outcomes[i], done, states.size()) << '\n' << std::flush;
      }
    }
    pair.stop();
    const std::lock_guard guard(lock);
    if (pair.given_up()) {
      given_up.push_back(pair.given_up_because());
    }
    if (summary != nullptr) {
      summary->workers_started += pair.summary().workers_started;
      summary->faults += pair.summary().faults;
      summary->worker_ready_seconds.insert(summary->worker_ready_seconds.end(),
                                           pair.summary().worker_ready_seconds.begin(),
                                           pair.summary().worker_ready_seconds.end());
    }
  };
  std::vector<std::thread> others;
  for (std::size_t p = 1; p < settings.pairs.size(); ++p) {
    others.emplace_back(serve, std::cref(settings.pairs[p]));
  }
  serve(settings.pairs.front());
  for (auto& t : others) {
    t.join();
  }
  std::signal(SIGPIPE, previous);
  std::string why;
  for (const auto& g : given_up) {
    why += (why.empty() ? "" : "; ") + g;
  }
  for (std::size_t i = 0; i < states.size(); ++i) {
    if (!taken[i]) {
      outcomes[i].failure = fmt::format("not run: no worker could start ({})", why);
      outcomes[i].failure_kind = error_kind::device_unavailable;
    }
  }
  return outcomes;
}

} // namespace kerntime::detail
