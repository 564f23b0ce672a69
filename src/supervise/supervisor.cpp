#include "supervise/supervisor.hpp"

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <deque>
#include <memory>
#include <ostream>

#include <fmt/format.h>

#include "kerntime/errors.hpp"
#include "supervise/worker_messages.hpp"

namespace kerntime::detail {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_between(clock_type::time_point from, clock_type::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// A pipe to a dead worker must fail a write, not end the supervisor.
class sigpipe_ignored {
public:
  sigpipe_ignored() : previous_(std::signal(SIGPIPE, SIG_IGN)) {}
  ~sigpipe_ignored() { std::signal(SIGPIPE, previous_); }
  sigpipe_ignored(const sigpipe_ignored&) = delete;
  sigpipe_ignored& operator=(const sigpipe_ignored&) = delete;
  sigpipe_ignored(sigpipe_ignored&&) = delete;
  sigpipe_ignored& operator=(sigpipe_ignored&&) = delete;

private:
  void (*previous_)(int);
};

enum class phase { none, starting, idle, busy, closing };

struct slot_state {
  const worker_slot* slot = nullptr;
  std::unique_ptr<worker_process> worker;
  phase now = phase::none;
  clock_type::time_point since; // start of the phase
  std::size_t state = 0;        // busy: index into the states
  std::optional<run_device> device;
  std::string unusable; // what the last worker said before giving up
  int failed_starts = 0;
  bool given_up = false;
  std::string given_up_because;
};

class supervisor {
public:
  supervisor(const std::vector<supervised_state>& states, const supervisor_settings& settings,
             supervision_summary& summary)
      : states_(states), settings_(settings), summary_(summary), runs_(states.size()),
        done_(states.size(), false) {
    for (const auto i : queue_order(states)) {
      queue_.push_back(i);
    }
    for (const auto& s : settings.slots) {
      slots_.emplace_back().slot = &s;
    }
    start_ = clock_type::now();
  }

  std::vector<benchmark_run> run() {
    const sigpipe_ignored guard;
    while (finished_ < states_.size() || any_worker()) {
      hand_out_work();
      if (std::all_of(slots_.begin(), slots_.end(),
                      [](const slot_state& s) { return s.given_up; })) {
        fail_the_rest();
        if (!any_worker()) {
          break;
        }
      }
      wait_and_read();
      enforce_deadlines();
    }
    return std::move(runs_);
  }

private:
  bool any_worker() const {
    return std::any_of(slots_.begin(), slots_.end(),
                       [](const slot_state& s) { return s.worker != nullptr; });
  }

  void event(const std::string& line) const {
    if (settings_.events != nullptr) {
      *settings_.events << "kerntime: " << line << '\n' << std::flush;
    }
  }

  void hand_out_work() {
    for (auto& s : slots_) {
      if (s.given_up) {
        continue;
      }
      if (s.worker == nullptr && !queue_.empty()) {
        start_worker(s);
      } else if (s.now == phase::idle && !queue_.empty()) {
        s.state = queue_.front();
        queue_.pop_front();
        s.now = phase::busy;
        s.since = clock_type::now();
        // A failed send means the worker died: its end of the pipe reads as ended next.
        (void)s.worker->send(run_command(*states_[s.state].identity.plan_index,
                                         states_[s.state].identity.state_name));
      } else if (s.now == phase::idle && queue_.empty()) {
        s.worker->close_commands();
        s.now = phase::closing;
        s.since = clock_type::now();
      }
    }
  }

  void start_worker(slot_state& s) {
    s.unusable.clear();
    try {
      s.worker = std::make_unique<worker_process>(s.slot->launch);
    } catch (const error& e) {
      give_up(s, e.what());
      return;
    }
    ++summary_.workers_started;
    s.now = phase::starting;
    s.since = clock_type::now();
  }

  void give_up(slot_state& s, const std::string& why) {
    s.given_up = true;
    s.given_up_because = why;
    event(fmt::format("{} is given up: {}", s.slot->label, why));
  }

  void fail_the_rest() {
    std::string why;
    for (const auto& s : slots_) {
      why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", s.slot->label, s.given_up_because);
    }
    while (!queue_.empty()) {
      const auto i = queue_.front();
      queue_.pop_front();
      record_failure(i, error_kind::device_unavailable,
                     fmt::format("not run: no worker could start ({})", why), std::nullopt, 0);
    }
  }

  void wait_and_read() {
    std::vector<pollfd> fds;
    std::vector<slot_state*> owners;
    for (auto& s : slots_) {
      if (s.worker != nullptr) {
        fds.push_back({.fd = s.worker->message_fd(), .events = POLLIN, .revents = 0});
        owners.push_back(&s);
      }
    }
    if (fds.empty()) {
      return;
    }
    constexpr int longest_wait_ms = 200; // deadlines are checked at least this often
    (void)::poll(fds.data(), fds.size(), longest_wait_ms);
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents != 0) {
        read_from(*owners[i]);
      }
    }
  }

  void read_from(slot_state& s) {
    for (const auto& line : s.worker->read_lines()) {
      worker_message m;
      try {
        m = parse_worker_message(line);
      } catch (const invalid_argument& e) {
        event(fmt::format("{}: {}; the worker is stopped", s.slot->label, e.what()));
        s.worker->kill();
        break;
      }
      handle(s, m);
    }
    if (s.worker->ended()) {
      s.worker->kill(); // closed its channel: it is gone, or no use any more
      worker_gone(s, s.worker->reap());
    }
  }

  void handle(slot_state& s, worker_message& m) {
    switch (m.what) {
    case worker_message::kind::ready:
      summary_.worker_ready_seconds.push_back(seconds_between(s.since, clock_type::now()));
      s.device = m.device;
      s.failed_starts = 0;
      s.now = phase::idle;
      break;
    case worker_message::kind::unusable:
      s.unusable = m.text;
      break;
    case worker_message::kind::result:
      if (s.now != phase::busy || m.run.plan_index != states_[s.state].identity.plan_index) {
        event(fmt::format("{}: a result for a state it was not given is ignored", s.slot->label));
        break;
      }
      s.now = phase::idle;
      if (m.run.status == run_status::failed && m.run.error == error_kind::cuda_fault) {
        // The worker exits after a fault: no state may be sent to it meanwhile.
        ++summary_.faults;
        s.worker->close_commands();
        s.now = phase::closing;
        s.since = clock_type::now();
      }
      store(s.state, std::move(m.run));
      break;
    }
  }

  void worker_gone(slot_state& s, const std::string& how) {
    const phase was = s.now;
    if (was == phase::closing) {
      summary_.worker_exit_seconds.push_back(seconds_between(s.since, clock_type::now()));
    }
    s.worker.reset();
    s.now = phase::none;
    if (was == phase::busy) {
      ++summary_.faults;
      const double seconds = seconds_between(s.since, clock_type::now());
      record_failure(s.state, error_kind::crashed,
                     fmt::format("crashed: {}: the worker process died while running this "
                                 "state; the next state runs in a fresh worker",
                                 how),
                     s.device, seconds);
      event(fmt::format("{}: {} crashed the worker ({}); starting a fresh one", s.slot->label,
                        states_[s.state].identity.state_name, how));
    } else if (was == phase::starting) {
      const std::string why = s.unusable.empty()
                                  ? fmt::format("the worker ended before it was ready ({})", how)
                                  : s.unusable;
      if (++s.failed_starts >= settings_.start_attempts) {
        give_up(s, why);
      }
    }
  }

  void enforce_deadlines() {
    const auto now = clock_type::now();
    for (auto& s : slots_) {
      if (s.worker == nullptr) {
        continue;
      }
      const double elapsed = seconds_between(s.since, now);
      if (s.now == phase::busy && elapsed > settings_.state_timeout_s) {
        s.worker->kill();
        const auto how = s.worker->reap();
        s.worker.reset();
        s.now = phase::none;
        ++summary_.faults;
        record_failure(s.state, error_kind::timed_out,
                       fmt::format("timed_out after {:g} s (--state-timeout): the worker was "
                                   "killed; the next state runs in a fresh worker",
                                   settings_.state_timeout_s),
                       s.device, elapsed);
        event(fmt::format("{}: {} ran past {:g} s and its worker was killed ({}); starting a "
                          "fresh one",
                          s.slot->label, states_[s.state].identity.state_name,
                          settings_.state_timeout_s, how));
      } else if (s.now == phase::starting && elapsed > settings_.start_timeout_s) {
        s.worker->kill();
        worker_gone(s, fmt::format("not ready after {:g} s", settings_.start_timeout_s));
      } else if (s.now == phase::closing && elapsed > settings_.exit_timeout_s) {
        s.worker->kill();
        const auto how = s.worker->reap();
        event(fmt::format("{}: its worker had not exited {:g} s after its last state and was "
                          "killed ({})",
                          s.slot->label, settings_.exit_timeout_s, how));
        worker_gone(s, how);
      }
    }
  }

  void record_failure(std::size_t i, error_kind kind, std::string message,
                      const std::optional<run_device>& device, double seconds) {
    benchmark_run run = states_[i].identity;
    run.status = run_status::failed;
    run.error = kind;
    run.message = std::move(message);
    run.result.reset();
    run.device = device;
    run.wall_seconds = seconds;
    store(i, std::move(run));
  }

  void store(std::size_t i, benchmark_run run) {
    if (done_[i]) {
      return;
    }
    done_[i] = true;
    ++finished_;
    if (settings_.progress != nullptr) {
      *settings_.progress << fmt::format("[{}/{}] {} {} in {:.2f} s{}, {:.2f} s elapsed\n",
                                         finished_, states_.size(), run.state_name,
                                         to_string(run.status), run.wall_seconds,
                                         run.device ? fmt::format(" on GPU {}", run.device->ordinal)
                                                    : "",
                                         seconds_between(start_, clock_type::now()))
                          << std::flush;
    }
    runs_[i] = std::move(run);
  }

  const std::vector<supervised_state>& states_;
  const supervisor_settings& settings_;
  supervision_summary& summary_;
  std::vector<benchmark_run> runs_;
  std::vector<bool> done_;
  std::size_t finished_ = 0;
  std::deque<std::size_t> queue_;
  std::vector<slot_state> slots_;
  clock_type::time_point start_;
};

} // namespace

std::vector<std::size_t> queue_order(const std::vector<supervised_state>& states) {
  std::vector<std::size_t> order(states.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto& x = states[a].expected_seconds;
    const auto& y = states[b].expected_seconds;
    if (x.has_value() != y.has_value()) {
      return !x.has_value(); // unknown first
    }
    return x.has_value() && *x > *y;
  });
  return order;
}

std::vector<benchmark_run> supervise(const std::vector<supervised_state>& states,
                                     const supervisor_settings& settings,
                                     supervision_summary* summary) {
  supervision_summary ignored;
  supervisor s(states, settings, summary != nullptr ? *summary : ignored);
  return s.run();
}

} // namespace kerntime::detail
