// kerntime::measure: the protocol from set-up to result. Reads as the protocol it implements:
// prepare, warm up, choose the timer, attach, time the trials, detach, attribute, summarise.

#include "kerntime/measure.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <variant>

#include "cupti/cupti_library.hpp"
#include "cupti/cupti_session.hpp"
#include "measure/backend_choice.hpp"
#include "measure/cuda_check.hpp"
#include "measure/cupti_timer.hpp"
#include "measure/event_timer.hpp"
#include "measure/l2_flush.hpp"
#include "telemetry/telemetry_probe.hpp"

namespace kerntime {
namespace {

using detail::check_cuda;

device_info read_device() {
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
    throw device_unavailable(fmt::format(
        "no CUDA device found ({}); kerntime measures work on an NVIDIA GPU: run it on a machine "
        "with one and a working driver",
        e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports zero devices"));
  }
  device_info d;
  check_cuda(cudaGetDevice(&d.ordinal), "reading the current device");
  cudaDeviceProp props{};
  check_cuda(cudaGetDeviceProperties(&props, d.ordinal), "reading the device properties");
  d.name = props.name;
  d.compute_capability_major = props.major;
  d.compute_capability_minor = props.minor;
  d.multiprocessors = props.multiProcessorCount;
  d.l2_bytes = static_cast<std::size_t>(props.l2CacheSize);
  d.memory_bytes = props.totalGlobalMem;
  check_cuda(cudaDriverGetVersion(&d.driver_version), "reading the driver version");
  check_cuda(cudaRuntimeGetVersion(&d.runtime_version), "reading the runtime version");
  return d;
}

// A stream kerntime creates when the caller gives none.
class owned_stream {
public:
  explicit owned_stream(cudaStream_t given) : stream_(given) {
    if (stream_ == nullptr) {
      check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a stream");
      owned_ = true;
    }
  }
  ~owned_stream() {
    if (owned_) {
      cudaStreamDestroy(stream_);
    }
  }
  owned_stream(const owned_stream&) = delete;
  owned_stream& operator=(const owned_stream&) = delete;
  owned_stream(owned_stream&&) = delete;
  owned_stream& operator=(owned_stream&&) = delete;
  [[nodiscard]] cudaStream_t get() const { return stream_; }

private:
  cudaStream_t stream_ = nullptr;
  bool owned_ = false;
};

void warn_fallback_once(const std::string& reason) {
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true)) {
    std::fprintf(stderr, "kerntime: warning: timing with CUDA events: %s\n", reason.c_str());
  }
}

void summarise(const detail::timed_trials& timed, measurement_result& r) {
  std::vector<double> headline;
  std::vector<double> spans;
  std::vector<double> busies;
  std::vector<std::vector<double>> per_trial;
  for (std::size_t t = 0; t < timed.samples.size(); ++t) {
    trial_result trial;
    trial.iterations = timed.samples[t];
    if (t < timed.telemetry.size()) {
      trial.telemetry = timed.telemetry[t];
    }
    std::vector<double> trial_headline;
    for (const auto& s : trial.iterations) {
      const double value = r.protocol_used.metric == headline_metric::span ? s.span_ns : s.busy_ns;
      headline.push_back(value);
      trial_headline.push_back(value);
      spans.push_back(s.span_ns);
      busies.push_back(s.busy_ns);
    }
    per_trial.push_back(std::move(trial_headline));
    r.trials.push_back(std::move(trial));
  }
  r.stats = summarize(headline);
  r.span = summarize(spans);
  r.busy = summarize(busies);
  r.trials_summary = summarize_trials(per_trial);
  r.latency_ns = r.stats.median;
  r.kernels = timed.kernels;
  r.trace = timed.trace;
  r.flush_median_ns = timed.flush_median_ns;
  r.warnings.insert(r.warnings.end(), timed.warnings.begin(), timed.warnings.end());
}

} // namespace

measurement_result measure(const work_function& work, const protocol& p, cudaStream_t stream) {
  if (auto problem = validate(p)) {
    throw invalid_argument("invalid protocol: " + *problem);
  }
  if (!work) {
    throw invalid_argument("measure() was given an empty work function; pass the work to time");
  }
  const auto wall_start = std::chrono::steady_clock::now();
  measurement_result r;
  r.protocol_used = p;
  r.device = read_device();
  // A fault left by earlier work is not this benchmark's; say so before running anything.
  check_cuda(cudaGetLastError(), "before the measurement (an earlier CUDA error is pending)");

  // Everything the timed region needs is prepared here: no allocation inside it.
  const owned_stream timing_stream(stream);
  std::unique_ptr<detail::l2_flush> flush;
  if (p.flush_l2) {
    flush = std::make_unique<detail::l2_flush>(p.flush_bytes);
    r.flush_bytes = flush->bytes();
  }
  check_cuda(cudaCtxResetPersistingL2Cache(), "resetting persisting L2 lines");
  std::unique_ptr<detail::telemetry_probe> probe;
  if (p.telemetry) {
    probe = detail::telemetry_probe::open(r.device.ordinal, p);
    r.telemetry = probe->device();
  }
  detail::blocking_kernel blocker;
  detail::iteration_context context{work,        p,           timing_stream.get(),
                                    flush.get(), probe.get(), &blocker};

  // Warmup: JIT compilation, autotuning, lazy loading — before any timer is attached.
  for (int i = 0; i < p.warmup; ++i) {
    if (flush) {
      flush->enqueue(context.stream);
    }
    work(context.stream, context.take_input_set());
  }
  const cudaError_t warmup_error = cudaDeviceSynchronize();
  const cudaError_t pending = warmup_error != cudaSuccess ? warmup_error : cudaGetLastError();

  // Choose the timer: attach CUPTI unless events were asked for.
  detail::attach_outcome outcome;
  std::unique_ptr<detail::cupti_session> session;
  if (pending == cudaSuccess && p.backend != backend_request::events) {
    auto loaded = detail::load_cupti();
    if (const auto* why = std::get_if<std::string>(&loaded)) {
      outcome.load_error = *why;
    } else {
      session = std::make_unique<detail::cupti_session>(
          *std::get<const detail::cupti_library*>(loaded), outcome);
    }
  }
  const detail::backend_decision decision = detail::decide_backend(
      p.backend, static_cast<int>(pending),
      pending == cudaSuccess
          ? std::string()
          : fmt::format("{} ({})", cudaGetErrorName(pending), cudaGetErrorString(pending)),
      outcome);
  detail::timed_trials timed;
  switch (decision.action) {
  case detail::backend_action::fail_benchmark:
    check_cuda(pending, fmt::format("warmup ({} iterations)", p.warmup));
    break;
  case detail::backend_action::fail_unavailable:
    throw cupti_unavailable(decision.reason);
  case detail::backend_action::fail_invalid:
    throw measurement_invalid(decision.reason);
  case detail::backend_action::use_cupti:
    r.backend = timing_backend::cupti;
    r.backend_reason = decision.reason;
    timed = detail::time_with_cupti(*session, context);
    break;
  case detail::backend_action::use_events:
    session.reset(); // never time with events while CUPTI is attached
    r.backend = timing_backend::events;
    r.backend_reason = decision.reason;
    if (p.backend == backend_request::automatic) {
      warn_fallback_once(decision.reason);
      r.warnings.push_back("timed with CUDA events, not CUPTI: " + decision.reason +
                           "; event times include launch latency inside the work and no "
                           "per-kernel breakdown is available");
    }
    timed = detail::time_with_events(context);
    break;
  }
  summarise(timed, r);
  if (probe) {
    r.telemetry = probe->device(); // "clocks look locked" is revised by every trial's reading
    r.warnings.insert(r.warnings.end(), probe->warnings().begin(), probe->warnings().end());
  }
  r.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return r;
}

} // namespace kerntime
