// A worker program for the supervisor's tests: it speaks the real worker protocol
// (supervise/worker_messages.hpp) on the channel the supervisor gives it, and does to each state
// what the state's benchmark name says, without a GPU:
//   ok       sends a measured result (a real measurement_result, latency = 1000 + plan index)
//   crash    dies of SIGSEGV mid-state          exit   exits with code 3 mid-state
//   hang     never answers                      fault  sends a cuda_fault result, then exits
//   garbage  sends a line that is no message
// STAND_IN_UNUSABLE=reason: says the device is unusable and exits. STAND_IN_LOG=FILE: appends
// "start PID DEVICE [stream=one] placement=..." per start, "trial SIDE STATE PID" per trial
// (STAND_IN_SIDE) and "exit PID" when its commands end. STAND_IN_STATE_MS=N: an ok state takes N
// ms. KERNTIME_WORKER_DEVICE: the ordinal it reports. For kerntime ab: `stand_in_worker list --json
// -` prints a plan of the states in STAND_IN_STATES (comma-separated; default ok/n=1,ok/n=2). An ok
// result holds one trial of 4 iterations whose time is (1000 + 100 × plan index) × STAND_IN_SCALE
// (default 1) with 0.05 % noise; STAND_IN_SCALED=NAME: the scale applies to that state only; so
// does STAND_IN_NOISE=F, the noise's standard deviation as a fraction (default 0.0005).
// STAND_IN_TIMER_NS=N: the timer's step the results report (a 1000 ns state with N = 32 is
// timer-bound at ±1 %). STAND_IN_REFERENCE=IDENTITY: it reports measuring kerntime's reference of
// that identity and answers "reference" with a result of 5000 ns (STAND_IN_NOISE's noise), logged
// "reference SIDE PID"; without it, it reports none. STAND_IN_MODE=SHARE,SIZE: the process draws
// (or takes from STAND_IN_MODE_SEQUENCE, counted in STAND_IN_MODE_COUNTER: high_mode below)
// the high mode with chance SHARE, which makes the reference SIZE (a fraction) slower and every
// state STAND_IN_MODE_SLOPE (default 1) times that. STAND_IN_REFERENCE_FAILS=1: the reference
// fails. The start line logs "stream=one" where KERNTIME_ONE_STREAM is set.
// STAND_IN_HANG_AT_EXIT=1: after its commands end it never exits (a teardown that hangs);
// STAND_IN_EXIT_MS=N: it takes N ms to exit (a CUDA context's teardown), logging "exit" after them.

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kerntime/report.hpp"
#include "supervise/plan_listing.hpp"
#include "supervise/worker_messages.hpp"

namespace {

void send(int fd, const std::string& line) {
  const std::string text = line + '\n';
  (void)!::write(fd, text.data(), text.size());
}

std::string benchmark_of(const std::string& state_name) {
  return state_name.substr(0, state_name.find('/'));
}

std::vector<std::string> listed_states() {
  const char* given = std::getenv("STAND_IN_STATES");
  std::stringstream names(given != nullptr ? given : "ok/n=1,ok/n=2");
  std::vector<std::string> states;
  for (std::string name; std::getline(names, name, ',');) {
    states.push_back(name);
  }
  return states;
}

int list_plan() {
  kerntime::detail::plan_listing plan;
  plan.kerntime_version = "stand-in";
  const auto states = listed_states();
  plan.plan_states = states.size();
  for (std::size_t i = 0; i < states.size(); ++i) {
    plan.states.push_back({i, states[i], benchmark_of(states[i])});
  }
  std::cout << kerntime::detail::plan_to_json(plan);
  return 0;
}

// A number from the environment for `state`, or `otherwise` (STAND_IN_SCALED names the one state
// it is for, when set).
double for_state(const char* variable, const std::string& state, double otherwise) {
  const char* only = std::getenv("STAND_IN_SCALED");
  if (only != nullptr && state != only) {
    return otherwise;
  }
  const char* given = std::getenv(variable);
  return given != nullptr ? std::atof(given) : otherwise; // NOLINT(cert-err34-c): a test's input
}

double scale(const std::string& state) {
  return for_state("STAND_IN_SCALE", state, 1.0);
}

// A measured result: one trial of 4 iterations of `ns`, at 1980 MHz, one kernel, the timer's step
// STAND_IN_TIMER_NS.
kerntime::measurement_result measured(double ns) {
  using namespace kerntime;
  measurement_result r;
  trial_result trial;
  trial.iterations.assign(4, iteration_sample{.span_ns = ns, .busy_ns = ns});
  trial.telemetry.measured_sm_clock_mhz = 1980;
  r.trials.push_back(trial);
  r.latency_ns = ns;
  if (const char* step = std::getenv("STAND_IN_TIMER_NS")) {
    r.timer_resolution_ns = std::atof(step); // NOLINT(cert-err34-c): a test's input
  }
  r.kernels.push_back({.name = "stand_in_kernel",
                       .calls_per_iteration = 1,
                       .mean_ns = ns,
                       .median_ns = ns,
                       .share = 1});
  return r;
}

// Whether this process sits in the high mode: drawn with chance `share`, or, where
// STAND_IN_MODE_SEQUENCE gives a pattern of 0s and 1s and STAND_IN_MODE_COUNTER a file, the next
// character of the pattern (the nth process started with that file reads the nth, cyclically),
// for tests that must not depend on the draw.
bool high_mode(double share, std::mt19937_64& draw) {
  const char* sequence = std::getenv("STAND_IN_MODE_SEQUENCE");
  const char* counter = std::getenv("STAND_IN_MODE_COUNTER");
  if (sequence == nullptr || counter == nullptr || *sequence == '\0') {
    return std::uniform_real_distribution<double>(0, 1)(draw) < share;
  }
  const int fd = ::open(counter, O_RDWR | O_CREAT, 0600);
  (void)::flock(fd, LOCK_EX);
  char text[32] = {};
  const ssize_t n = ::pread(fd, text, sizeof(text) - 1, 0);
  const long k = n > 0 ? std::strtol(text, nullptr, 10) : 0;
  const std::string next = std::to_string(k + 1);
  (void)!::pwrite(fd, next.data(), next.size(), 0);
  (void)::flock(fd, LOCK_UN);
  ::close(fd);
  return sequence[static_cast<std::size_t>(k) % std::strlen(sequence)] == '1';
}

} // namespace

int main(int argc, char** argv) {
  using namespace kerntime;
  using namespace kerntime::detail;
  if (argc > 1 && std::string(argv[1]) == "list") {
    return list_plan();
  }
  std::mt19937_64 draw(static_cast<std::uint64_t>(::getpid()));
  std::normal_distribution<double> unit_noise(0.0, 1.0);
  const char* channel = std::getenv("KERNTIME_WORKER_CHANNEL");
  int in = -1;
  int out = -1;
  if (channel == nullptr || std::sscanf(channel, "%d,%d", &in, &out) != 2) {
    std::cerr << "stand_in_worker: KERNTIME_WORKER_CHANNEL is not set\n";
    return 2;
  }
  const char* device_text = std::getenv("KERNTIME_WORKER_DEVICE");
  const int ordinal = device_text != nullptr ? std::atoi(device_text) : 0;
  if (const char* log = std::getenv("STAND_IN_LOG")) {
    const char* placement = std::getenv("KERNTIME_VARY_PLACEMENT");
    std::ofstream(log, std::ios::app)
        << "start " << ::getpid() << ' ' << ordinal
        << (std::getenv("KERNTIME_ONE_STREAM") != nullptr ? " stream=one" : "")
        << " placement=" << (placement != nullptr ? placement : "none") << '\n';
  }
  if (const char* unusable = std::getenv("STAND_IN_UNUSABLE")) {
    send(out, unusable_message(unusable));
    return 3;
  }
  const run_device device{"stand-in-host", ordinal, "Stand-in GPU",
                          "GPU-00000000-0000-0000-0000-00000000000" + std::to_string(ordinal)};
  const char* reference = std::getenv("STAND_IN_REFERENCE");
  send(out, ready_message(device, reference != nullptr ? reference : ""));
  // This process's mode: the log offset of the reference; states move by the slope times it.
  double mode = 0;
  if (const char* given = std::getenv("STAND_IN_MODE")) {
    double share = 0;
    double size = 0;
    if (std::sscanf(given, "%lf,%lf", &share, &size) == 2 && high_mode(share, draw)) {
      mode = std::log1p(size);
    }
  }
  const char* slope_text = std::getenv("STAND_IN_MODE_SLOPE");
  const double slope = slope_text != nullptr ? std::atof(slope_text) : 1.0;
  FILE* commands = ::fdopen(in, "r");
  char* line = nullptr;
  std::size_t capacity = 0;
  while (::getline(&line, &capacity, commands) > 0) {
    std::string text(line);
    text.pop_back();
    if (is_reference_command(text)) {
      if (const char* log = std::getenv("STAND_IN_LOG")) {
        const char* side = std::getenv("STAND_IN_SIDE");
        std::ofstream(log, std::ios::app)
            << "reference " << (side != nullptr ? side : "?") << ' ' << ::getpid() << '\n';
      }
      const char* reference_ns = std::getenv("STAND_IN_REFERENCE_NS");
      const double ns = (reference_ns != nullptr ? std::atof(reference_ns) : 5000.0) *
                        std::exp(mode) *
                        (1.0 + for_state("STAND_IN_NOISE", "", 0.0005) * unit_noise(draw));
      benchmark_run run;
      run.benchmark = "kerntime_reference";
      run.state_name = "kerntime_reference/kernels=16";
      run.device = device;
      run.status = run_status::ok;
      run.result = measured(ns);
      if (std::getenv("STAND_IN_REFERENCE_FAILS") != nullptr) {
        run.status = run_status::failed;
        run.error = error_kind::other;
        run.message = "the reference's kernels: invalid configuration";
        run.result.reset();
      }
      send(out, result_message(run));
      continue;
    }
    const auto request = parse_run_command(text);
    if (!request) {
      return 4;
    }
    const auto what = benchmark_of(request->state_name);
    if (const char* log = std::getenv("STAND_IN_LOG")) {
      const char* side = std::getenv("STAND_IN_SIDE");
      std::ofstream(log, std::ios::app) << "trial " << (side != nullptr ? side : "?") << ' '
                                        << request->state_name << ' ' << ::getpid() << '\n';
    }
    benchmark_run run;
    run.benchmark = what;
    run.state_name = request->state_name;
    run.plan_index = request->plan_index;
    run.device = device;
    run.wall_seconds = 0.01;
    if (what == "crash") {
      std::raise(SIGSEGV);
    } else if (what == "exit") {
      std::_Exit(3);
    } else if (what == "hang") {
      for (;;) {
        std::this_thread::sleep_for(std::chrono::seconds(1));
      }
    } else if (what == "garbage") {
      send(out, "this is not a message");
    } else if (what == "fault") {
      run.status = run_status::failed;
      run.error = error_kind::cuda_fault;
      run.message = "CUDA error cudaErrorIllegalAddress; the CUDA context is unusable";
      send(out, result_message(run));
      return 5;
    } else {
      if (const char* ms = std::getenv("STAND_IN_STATE_MS")) {
        std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(ms)));
      }
      run.status = run_status::ok;
      measurement_result r;
      r.latency_ns = 1000.0 + static_cast<double>(request->plan_index);
      if (std::getenv("STAND_IN_STATES") != nullptr || std::getenv("STAND_IN_SCALE") != nullptr) {
        const double ns =
            (1000.0 + (100.0 * static_cast<double>(request->plan_index))) *
            scale(request->state_name) *
            (1.0 + for_state("STAND_IN_NOISE", request->state_name, 0.0005) * unit_noise(draw));
        r = measured(ns * std::exp(slope * mode));
      }
      run.result = r;
      send(out, result_message(run));
    }
  }
  if (const char* ms = std::getenv("STAND_IN_EXIT_MS")) {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(ms)));
  }
  if (const char* log = std::getenv("STAND_IN_LOG")) {
    std::ofstream(log, std::ios::app) << "exit " << ::getpid() << '\n';
  }
  if (std::getenv("STAND_IN_HANG_AT_EXIT") != nullptr) {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
  return 0;
}
