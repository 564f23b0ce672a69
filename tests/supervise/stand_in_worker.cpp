// A worker program for the supervisor's tests: it speaks the real worker protocol
// (supervise/worker_messages.hpp) on the channel the supervisor gives it, and does to each state
// what the state's benchmark name says, without a GPU:
//   ok       sends a measured result (a real measurement_result, latency = 1000 + plan index)
//   crash    dies of SIGSEGV mid-state          exit   exits with code 3 mid-state
//   hang     never answers                      fault  sends a cuda_fault result, then exits
//   garbage  sends a line that is no message
// STAND_IN_UNUSABLE=reason: says the device is unusable and exits. STAND_IN_LOG=FILE: appends
// "start PID DEVICE" per start. STAND_IN_STATE_MS=N: an ok state takes N ms.
// KERNTIME_WORKER_DEVICE: the ordinal it reports.

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "kerntime/report.hpp"
#include "supervise/worker_messages.hpp"

namespace {

void send(int fd, const std::string& line) {
  const std::string text = line + '\n';
  (void)!::write(fd, text.data(), text.size());
}

std::string benchmark_of(const std::string& state_name) {
  return state_name.substr(0, state_name.find('/'));
}

} // namespace

int main() {
  using namespace kerntime;
  using namespace kerntime::detail;
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
    std::ofstream(log, std::ios::app) << "start " << ::getpid() << ' ' << ordinal << '\n';
  }
  if (const char* unusable = std::getenv("STAND_IN_UNUSABLE")) {
    send(out, unusable_message(unusable));
    return 3;
  }
  const run_device device{"stand-in-host", ordinal, "Stand-in GPU",
                          "GPU-00000000-0000-0000-0000-00000000000" + std::to_string(ordinal)};
  send(out, ready_message(device));
  FILE* commands = ::fdopen(in, "r");
  char* line = nullptr;
  std::size_t capacity = 0;
  while (::getline(&line, &capacity, commands) > 0) {
    std::string text(line);
    text.pop_back();
    const auto request = parse_run_command(text);
    if (!request) {
      return 4;
    }
    const auto what = benchmark_of(request->state_name);
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
      run.result = r;
      send(out, result_message(run));
    }
  }
  return 0;
}
