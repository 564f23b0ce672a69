#include "cli/worker_loop.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "cli/counter_phase.hpp"
#include "cli/device_selection.hpp"
#include "cli/state_runner.hpp"
#include "kerntime/measure.hpp"
#include "kerntime/session.hpp"
#include "measure/blocking_kernel.hpp"
#include "measure/kept_resources.hpp"
#include "measure/reference_work.hpp"
#include "supervise/exit_codes.hpp"
#include "supervise/worker_messages.hpp"
#include "supervise/worker_process.hpp"

namespace kerntime::detail {
namespace {

// The exit code of a worker that stopped after a CUDA fault (the supervisor starts another).
constexpr int exit_after_fault = 5;

struct channel_fds {
  int in = -1;
  int out = -1;
};

std::optional<channel_fds> parse_channel(std::string_view text) {
  channel_fds fds;
  if (std::sscanf(std::string(text).c_str(), "%d,%d", &fds.in, &fds.out) != 2 || fds.in < 0 ||
      fds.out < 0) {
    return std::nullopt;
  }
  return fds;
}

class channel {
public:
  explicit channel(channel_fds fds) : in_(::fdopen(fds.in, "r")), out_(fds.out) {}
  ~channel() {
    if (in_ != nullptr) {
      std::fclose(in_);
    }
    ::close(out_);
  }
  channel(const channel&) = delete;
  channel& operator=(const channel&) = delete;
  channel(channel&&) = delete;
  channel& operator=(channel&&) = delete;

  [[nodiscard]] bool usable() const { return in_ != nullptr; }

  // The next command line; false at the end of input (no more states).
  bool read(std::string& line) {
    char* data = nullptr;
    std::size_t capacity = 0;
    const ssize_t n = ::getline(&data, &capacity, in_);
    if (n < 0) {
      std::free(data); // NOLINT(cppcoreguidelines-no-malloc): getline allocates with malloc
      return false;
    }
    line.assign(data, static_cast<std::size_t>(n));
    std::free(data); // NOLINT(cppcoreguidelines-no-malloc)
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) {
      line.pop_back();
    }
    return true;
  }

  // False when the supervisor is gone.
  bool send(const std::string& message) {
    const std::string text = message + '\n';
    std::size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = ::write(out_, text.data() + written, text.size() - written);
      if (n <= 0) {
        return false;
      }
      written += static_cast<std::size_t>(n);
    }
    return true;
  }

private:
  FILE* in_;
  int out_;
};

// kerntime ab's workers prepare every state afresh for each trial, and where the preparation's
// buffers land moves small memory-bound states by percent (docs/ab.md). Freeing and allocating
// again often returns the same addresses, so each preparation first takes a pad of a drawn size:
// 0 to 63 large pages of 2 MiB (new physical pages, a new virtual range) plus 1 to 256 small
// steps of 512 bytes (a new offset inside a page shared by small allocations), held until the
// state is done. Told "all", the worker first frees the flush buffer its session keeps, so the
// measurement makes its own after the pad: where the flush buffer lies against the inputs and
// the code moves too (on an H100 that spread a lone one-warp kernel's A/A runs twice as wide and
// narrowed no other state's, docs/ab.md, so it is not the default).
class placement_pad {
public:
  explicit placement_pad(std::mt19937_64& draw) {
    constexpr std::size_t large_page = std::size_t{2} << 20;
    constexpr std::size_t small_step = 512;
    const std::size_t bytes = ((draw() % 64) * large_page) + ((1 + (draw() % 256)) * small_step);
    if (cudaMalloc(&pad_, bytes) != cudaSuccess) {
      pad_ = nullptr;
      (void)cudaGetLastError(); // a pad that does not fit is no error of the state's
    }
  }
  ~placement_pad() {
    if (pad_ != nullptr) {
      (void)cudaFree(pad_);
    }
  }
  placement_pad(const placement_pad&) = delete;
  placement_pad& operator=(const placement_pad&) = delete;
  placement_pad(placement_pad&&) = delete;
  placement_pad& operator=(placement_pad&&) = delete;

private:
  void* pad_ = nullptr;
};

// The worker's own first measurement, one empty kernel under the run's protocol: it loads
// kerntime's kernels, opens NVML, probes the launch queue, initialises CUPTI and instruments the
// context, and leaves the flush buffer and blocking kernel in the session. ~60 ms on an H200 that
// the first state would otherwise pay (docs/queue.md). Returns what failed, empty when nothing
// did; a failure that leaves the context usable is left to the states to meet and report.
std::string prepare_worker(const protocol& asked) {
  protocol p = asked;
  p.warmup = 1;
  p.warmup_auto = false;
  p.trials = 1;
  p.repeats = 1;
  p.input_sets = 1;
  p.stop_at_ci.reset();
  p.counters = false;
  p.counters_only = false;
  p.launch = launch_mode::stream;
  std::string failed;
  try {
    (void)measure([](cudaStream_t stream, int) { launch_empty_kernels(stream, 1); }, p);
  } catch (const std::exception& e) {
    failed = e.what();
  }
  (void)cudaGetLastError();
  return failed;
}

int device_number() {
  const char* given = std::getenv(worker_device_variable);
  return given != nullptr ? std::atoi(given) : 0; // NOLINT(cert-err34-c): set by the supervisor
}

} // namespace

int serve_as_worker(std::string_view channel_text, const std::vector<planned_state>& plan,
                    const protocol& asked, const cli_environment& env, bool hold_session,
                    int preparations) {
  // run --counters: the supervisor says which phase this worker serves (cli/counter_phase.hpp).
  protocol p = asked;
  if (const char* phase_text = std::getenv(counter_phase_variable)) {
    if (const auto phase = parse_counter_phase(phase_text)) {
      p = protocol_for_phase(asked, *phase);
    }
  }
  const auto fds = parse_channel(channel_text);
  if (!fds) {
    *env.err << "kerntime: error: " << worker_channel_variable << "=" << channel_text
             << " is not a worker channel; it is set by kerntime run for its worker processes, "
                "unset it\n";
    return exit_bad_input;
  }
  // Not for the benchmarks' own child processes: one holding the message pipe open would hide
  // this worker's death from the supervisor.
  ::fcntl(fds->in, F_SETFD, FD_CLOEXEC);
  ::fcntl(fds->out, F_SETFD, FD_CLOEXEC);
  channel supervisor(*fds);
  if (!supervisor.usable()) {
    *env.err << "kerntime: error: the worker channel cannot be opened\n";
    return exit_internal_error;
  }
  if (auto problem = env.find_device_problem()) {
    (void)supervisor.send(unusable_message(*problem));
    return exit_no_device;
  }
  if (auto problem = env.create_context()) {
    (void)supervisor.send(unusable_message(*problem));
    return exit_no_device;
  }
  const int ordinal = device_number();
  const auto device = read_run_device(ordinal);
  // A fault is a context healthy before a state and unusable after it; where the check cannot
  // pass even at the start (no CUDA context to check, as in the CPU-only tests) it says nothing.
  const bool context_checkable = !context_unusable();
  // kerntime ab with the reference: one stream for all of this worker's measurements, made before
  // the session and given back after it.
  std::optional<one_stream_scope> one_stream;
  if (std::getenv(one_stream_variable) != nullptr && context_checkable) {
    try {
      one_stream.emplace();
    } catch (const std::exception& e) {
      (void)supervisor.send(
          unusable_message(std::string("the worker's stream for all its measurements could not "
                                       "be made: ") +
                           e.what()));
      return exit_no_device;
    }
  }
  // CUPTI stays initialised and the flush buffer kept for all the states this worker runs
  // (kerntime/session.hpp); a worker that stops after a fault ends it on its way out. What is
  // per device is prepared before the worker says it is ready, so the first state does not pay it.
  std::optional<session> scope;
  if (hold_session && context_checkable) {
    scope.emplace();
    const std::string failed = prepare_worker(p);
    if (context_unusable()) {
      // Every state would fail here as a fault of its own: the device is unusable instead, and
      // the supervisor gives it up after its start attempts, saying why.
      (void)supervisor.send(unusable_message(
          "the worker's own first measurement (one empty kernel) left the CUDA context "
          "unusable" +
          (failed.empty() ? std::string() : ": " + failed)));
      return exit_no_device;
    }
  }
  // The reference is measured where states are: with a CUDA context to measure in.
  if (!supervisor.send(ready_message(device, context_checkable ? reference_identity : ""))) {
    return exit_internal_error;
  }
  const char* const placement = std::getenv(vary_placement_variable);
  const bool vary_placement = placement != nullptr;
  const bool vary_flush = vary_placement && std::string_view(placement) == vary_flush_too;
  std::mt19937_64 draw(
      static_cast<std::uint64_t>(::getpid()) ^
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::string line;
  while (supervisor.read(line)) {
    const bool reference = is_reference_command(line);
    const auto request = reference ? std::nullopt : parse_run_command(line);
    if (!reference && (!request || request->plan_index >= plan.size() ||
                       plan[request->plan_index].name != request->state_name)) {
      *env.err << "kerntime: error: the worker was asked for a state its plan does not hold (\""
               << line.substr(0, 200)
               << "\"); the benchmarks must register the same states in every process\n";
      return exit_internal_error;
    }
    std::optional<placement_pad> pad;
    if (vary_placement && context_checkable) {
      if (vary_flush) {
        release_kept_flushes(); // the session's flush buffer: made again after the pad
      }
      pad.emplace(draw);
    }
    benchmark_run run =
        reference ? run_reference(p) : run_state(plan, request->plan_index, p, preparations);
    pad.reset();
    run.device = device;
    if (run.result) {
      run.result->device.ordinal = ordinal;
    }
    const bool fault = run.status == run_status::failed && context_checkable && context_unusable();
    if (fault) {
      run.error = error_kind::cuda_fault;
      run.message += "; the CUDA context is unusable after it (a sticky error), so this worker "
                     "stopped and the next state runs in a fresh one";
    }
    if (!supervisor.send(result_message(run))) {
      return exit_internal_error;
    }
    if (fault) {
      return exit_after_fault;
    }
  }
  return exit_ok;
}

} // namespace kerntime::detail
