#include "kerntime/measure.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <variant>

#include "counters/counter_pass.hpp"
#include "counters/counters_summary.hpp"
#include "cupti/cupti_library.hpp"
#include "cupti/cupti_session.hpp"
#include "flush/l2_flush.hpp"
#include "kerntime/cuda.hpp"
#include "measure/backend_choice.hpp"
#include "measure/cupti_timer.hpp"
#include "measure/device.hpp"
#include "measure/event_timer.hpp"
#include "measure/graph_launch.hpp"
#include "measure/kept_resources.hpp"
#include "measure/launch_queue.hpp"
#include "measure/measure_with_sharing.hpp"
#include "measure/phase_clock.hpp"
#include "measure/summarise_measurement.hpp"
#include "measure/warmup.hpp"
#include "result/message_words.hpp"
#include "result/summarise.hpp"
#include "telemetry/energy_summary.hpp"
#include "telemetry/telemetry_probe.hpp"

namespace kerntime {
namespace {

void warn_fallback_once(const std::string& reason) {
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true)) {
    std::fprintf(stderr, "kerntime: warning: timing with CUDA events: %s\n", reason.c_str());
  }
}

// One measurement, step by step: what measure() runs. Everything the timed region needs is
// prepared by the constructor, so nothing is allocated once timing starts.
class measurement {
public:
  measurement(const work_function& work, const protocol& p, cudaStream_t stream)
      : protocol_(p), device_(detail::read_current_device()), work_(work),
        timed_work_([&work](cudaStream_t s, int input_set) { work(s, input_set); }) {
    // A fault left by earlier work is not this benchmark's; say so before running anything.
    check_cuda(cudaGetLastError(), "before the measurement (an earlier CUDA error is pending)");
    // kerntime ab's workers may set one stream for the process, so that a kernel-by-kernel
    // launch shares the reference's launch-gap mode; a graph launch does not follow that mode
    // and keeps its stream's draw for the process, so it gets a stream of its own each time
    // (docs/ab.md, "Graph launches on a stream of their own").
    if (stream == nullptr && p.launch != launch_mode::graph) {
      stream = detail::one_stream();
    }
    if (stream == nullptr) {
      stream = own_stream_.emplace().get();
    }
    if (p.flush_l2) {
      flush_ = detail::borrow_flush(p.flush_bytes); // kept for a scope (measure/kept_resources.hpp)
    }
    check_cuda(cudaCtxResetPersistingL2Cache(), "resetting persisting L2 lines");
    if (p.telemetry) {
      probe_ = detail::telemetry_probe::open(device_.ordinal, p);
    }
    blocker_ = detail::borrow_blocker();
    context_.emplace(detail::iteration_context{timed_work_, protocol_, stream, flush_.get(),
                                               probe_.get(), blocker_.get()});
    // The launch queue's depth, measured once per process before CUPTI attaches; the CUPTI timer
    // plans its chunks from it, the event timer queues whole trials and learns from stalls.
    watchdog_.emplace();
    context_->watchdog = &*watchdog_;
    context_->launch_queue_depth = detail::launch_queue_depth(stream, *blocker_, *watchdog_);
    context_->queue = detail::plan_queue(p.repeats, std::nullopt, 0);
    context_->device_ordinal = device_.ordinal;
  }

  // With counters: the metric names checked against this device's chip before anything runs
  // (unknown names throw unknown_metrics, an invalid_argument). Counters that cannot be had here
  // (no range profiler, an unsupported device) leave timing as it is; the result says why.
  void check_counters() {
    if (!protocol_.counters) {
      return;
    }
    try {
      (void)detail::check_device_metrics(device_.ordinal, protocol_.metrics);
    } catch (const detail::counters_unavailable& e) {
      context_->counters_unavailable = e.reason();
    }
  }

  // JIT compilation, autotuning, lazy loading: before any timer is attached. Returns the CUDA
  // error the warmup left, if any (the timer choice reports it).
  cudaError_t warm_up() {
    warmup_ = detail::warm_up(*context_);
    return warmup_.error;
  }

  // Graph mode: captures the work once per input set (after the warm-up, before any timer);
  // from here on each iteration launches a graph. Every graph runs once, untimed, after a flush.
  void launch_as_graphs(cudaError_t pending) {
    if (protocol_.launch != launch_mode::graph || pending != cudaSuccess) {
      return; // a warm-up error is reported by the timer choice
    }
    graphs_.emplace(work_, context_->stream, protocol_.input_sets);
    timed_work_ = graphs_->as_work();
    for (int set = 0; set < protocol_.input_sets; ++set) {
      if (flush_) {
        flush_->enqueue(context_->stream);
      }
      graphs_->launch(context_->stream, set);
    }
    check_device("the first launch of each captured graph");
  }

  // CUPTI loaded and attached; `outcome` says whether it worked (load_error when libcupti could
  // not be loaded, then no session).
  static std::unique_ptr<detail::cupti_session> attach_cupti(const detail::cupti_sharing& sharing,
                                                             detail::attach_outcome& outcome) {
    auto loaded = detail::load_cupti();
    if (const auto* why = std::get_if<std::string>(&loaded)) {
      outcome.load_error = *why;
      return nullptr;
    }
    return std::make_unique<detail::cupti_session>(*std::get<const detail::cupti_library*>(loaded),
                                                   outcome, sharing);
  }

  // Attaches CUPTI unless events were asked for, chooses the timer and runs the trials with it.
  // `sharing`: who holds CUPTI if kerntime cannot subscribe (measure/measure_with_sharing.hpp).
  detail::timed_trials time_trials(cudaError_t pending, const detail::cupti_sharing& sharing) {
    detail::attach_outcome outcome;
    std::unique_ptr<detail::cupti_session> session;
    if (pending == cudaSuccess && protocol_.backend != backend_request::events) {
      detail::add_seconds_of(context_->phases.attach,
                             [&] { session = attach_cupti(sharing, outcome); });
    }
    const detail::backend_decision decision = detail::decide_backend(
        protocol_.backend, static_cast<int>(pending),
        pending == cudaSuccess
            ? std::string()
            : fmt::format("{} ({})", cudaGetErrorName(pending), cudaGetErrorString(pending)),
        outcome);
    backend_reason_ = decision.reason;
    cupti_mode_ = decision.mode;
    switch (decision.action) {
    case detail::backend_action::fail_benchmark:
      check_cuda(pending,
                 fmt::format("warmup ({})", detail::counted(warmup_.iterations, "iteration")));
      break;
    case detail::backend_action::fail_unavailable:
      throw cupti_unavailable(decision.reason);
    case detail::backend_action::fail_invalid:
      throw measurement_invalid(decision.reason);
    case detail::backend_action::use_cupti:
      backend_ = timing_backend::cupti;
      return detail::time_with_cupti(*session, *context_);
    case detail::backend_action::use_events:
      session.reset(); // never time with events while CUPTI is attached
      backend_ = timing_backend::events;
      if (protocol_.backend == backend_request::automatic) {
        warn_fallback_once(decision.reason);
        fallback_warning_ = "timed with CUDA events, not CUPTI: " + decision.reason +
                            "; event times include launch latency inside the work and no "
                            "per-kernel breakdown is available";
      }
      return detail::time_with_events(*context_);
    }
    throw measurement_invalid("no timer was chosen; this is a kerntime bug");
  }

  // protocol.counters_only: CUPTI attached for one traced iteration and the counter pass, no
  // trials. What cannot be had (a warm-up error, CUPTI held elsewhere) is the block's reason.
  measurement_result counters_only(cudaError_t pending, const detail::cupti_sharing& sharing) {
    check_cuda(pending,
               fmt::format("warmup ({})", detail::counted(warmup_.iterations, "iteration")));
    measurement_result r;
    r.protocol_used = protocol_;
    r.device = device_;
    r.flush_bytes = flush_ ? flush_->bytes() : 0;
    detail::attach_outcome outcome;
    std::unique_ptr<detail::cupti_session> session;
    detail::add_seconds_of(context_->phases.attach,
                           [&] { session = attach_cupti(sharing, outcome); });
    if (outcome.load_error) {
      r.counters =
          detail::counters_unavailable_because("CUPTI could not be loaded: " + *outcome.load_error);
      return r;
    }
    if (!outcome.attached) {
      r.counters = detail::counters_unavailable_because(!context_->counters_unavailable.empty()
                                                            ? context_->counters_unavailable
                                                            : "CUPTI could not be attached: " +
                                                                  outcome.detail);
      return r;
    }
    r.backend = timing_backend::cupti;
    r.cupti = outcome.shared ? cupti_mode::shared_with_idle_torch_profiler : cupti_mode::subscribed;
    r.counters = detail::counters_with_cupti(*session, *context_);
    return r;
  }

  // The phases so far; the stages fill in their own (host_phases in kerntime/result.hpp).
  host_phases& phases() { return context_->phases; }

  // The result, closed by summarise() from the samples and what the runner knows beside them.
  measurement_result summarise(detail::timed_trials timed) const {
    detail::runner_facts facts;
    facts.device = device_;
    facts.backend = backend_;
    facts.backend_reason = backend_reason_;
    facts.cupti = cupti_mode_;
    facts.flush_bytes = flush_ ? flush_->bytes() : 0;
    facts.warmup = warmup_;
    facts.fallback_warning = fallback_warning_;
    if (probe_) {
      facts.telemetry = probe_->device();
      facts.telemetry_warnings = probe_->warnings();
      facts.energy = probe_->energy();
    }
    facts.counters_unavailable = context_->counters_unavailable;
    return detail::summarise(std::move(timed), protocol_, std::move(facts));
  }

private:
  const protocol& protocol_;
  device_info device_;
  const work_function& work_;
  work_function timed_work_; // what the timers call: the work, or in graph mode a graph launch
  std::optional<detail::captured_graphs> graphs_;
  std::optional<cuda_stream> own_stream_; // when the caller gives no stream
  detail::borrowed<detail::l2_flush> flush_;
  std::unique_ptr<detail::telemetry_probe> probe_;
  detail::borrowed<detail::blocking_kernel> blocker_;
  std::optional<detail::stall_watchdog> watchdog_;
  std::optional<detail::iteration_context> context_;
  detail::warmup_outcome warmup_;
  timing_backend backend_ = timing_backend::cupti;
  std::string backend_reason_;
  cupti_mode cupti_mode_ = cupti_mode::none;
  std::optional<std::string> fallback_warning_;
};

} // namespace

measurement_result measure(const work_function& work, const protocol& p, cudaStream_t stream) {
  return detail::measure(work, p, stream, detail::cupti_sharing{});
}

measurement_result detail::measure(const work_function& work, const protocol& p,
                                   cudaStream_t stream, const cupti_sharing& sharing) {
  if (auto problem = validate(p)) {
    throw invalid_argument("invalid protocol: " + *problem);
  }
  if (!work) {
    throw invalid_argument("measure() was given an empty work function; pass the work to time");
  }
  const auto wall_start = std::chrono::steady_clock::now();
  detail::phase_clock clock;
  measurement m(work, p, stream);
  m.check_counters();
  m.phases().prepare = clock.lap();
  const cudaError_t pending = m.warm_up();
  m.launch_as_graphs(pending);
  m.phases().warmup = clock.lap();
  measurement_result r;
  if (p.counters_only) {
    r = m.counters_only(pending, sharing);
    r.phases = m.phases();
  } else {
    detail::timed_trials timed = m.time_trials(pending, sharing);
    clock.lap(); // the timer's own phases are in m.phases()
    r = m.summarise(std::move(timed));
    r.phases = m.phases();
    r.phases.summarise += clock.lap();
  }
  r.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return r;
}

} // namespace kerntime
