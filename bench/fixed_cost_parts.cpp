// The parts of a measurement's fixed cost, one at a time (host_phases says how much each phase
// took; this says what inside a phase costs it): the resources `prepare` makes and frees (the
// flush buffer, the telemetry probe, the blocking kernel, the stall watchdog), the telemetry read
// around one trial, what a launch costs before CUPTI, after its finalize and while it is kept
// initialised between attaches, and CUPTI's attach and detach step by step (subscribe, each
// activity kind enabled in kerntime's order, disable, forced flush, unsubscribe, finalize). Median
// of 7 of each.

#include <cuda_runtime_api.h>
#include <cupti.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cuda_check.hpp"
#include "cupti/cupti_library.hpp"
#include "cupti_steps.hpp"
#include "flush/l2_flush.hpp"
#include "kerntime/statistics.hpp"
#include "measure/blocking_kernel.hpp"
#include "measure/stall_watchdog.hpp"
#include "result_line.hpp"
#include "spin_kernel.hpp"
#include "telemetry/telemetry_probe.hpp"

namespace {

using clock_type = std::chrono::steady_clock;
constexpr int samples = 7;

double ms_since(clock_type::time_point start) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

// Median milliseconds of `step`, run `samples` times.
double median_ms(const std::function<void()>& step) {
  std::vector<double> ms;
  for (int i = 0; i < samples; ++i) {
    const auto start = clock_type::now();
    step();
    ms.push_back(ms_since(start));
  }
  return kerntime::median(ms);
}

void print(const std::string& part, double ms) {
  kerntime::bench::result_line("fixed_cost_part").add("part", part).add("ms", ms).print();
}

void CUPTIAPI drop_buffer(CUcontext /*context*/, std::uint32_t /*stream*/, std::uint8_t* buffer,
                          std::size_t /*size*/, std::size_t /*valid*/) {
  std::free(buffer);
}

// Timed steps of one attach and detach, in order, each a (name, ms) pair. Without `finalize`,
// CUPTI stays initialised after the detach (what keeping it between measurements would cost).
std::vector<std::pair<std::string, double>> cupti_steps(const kerntime::detail::cupti_library& c,
                                                        cudaStream_t stream, bool finalize) {
  const std::vector<CUpti_ActivityKind> kinds = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                                 CUPTI_ACTIVITY_KIND_MEMSET,
                                                 CUPTI_ACTIVITY_KIND_MEMCPY,
                                                 CUPTI_ACTIVITY_KIND_RUNTIME,
                                                 CUPTI_ACTIVITY_KIND_DRIVER,
                                                 CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};
  std::vector<std::pair<std::string, double>> steps;
  auto timed = [&](const std::string& name, const auto& step) {
    const auto start = clock_type::now();
    step();
    steps.emplace_back(name, ms_since(start));
  };
  const CUpti_SubscriberHandle subscriber =
      kerntime::bench::attach_cupti_steps(c, kinds, drop_buffer, timed);
  timed("first_launch", [&] {
    kerntime::detail::launch_empty_kernels(stream, 1);
    KT_CUDA_CHECK(cudaStreamSynchronize(stream));
  });
  kerntime::bench::detach_cupti_steps(c, subscriber, kinds, timed, finalize);
  return steps;
}

// What an empty kernel costs with CUPTI detached: the host's launch time and the GPU's time per
// kernel, 1,000 launched back to back behind a spin kernel (so the GPU runs them without waiting
// for the host). DESIGN: kernels stay instrumented until cuptiFinalize.
void print_launch_costs(const char* when, cudaStream_t stream) {
  constexpr int launches = 1000;
  cudaEvent_t before = nullptr;
  cudaEvent_t after = nullptr;
  KT_CUDA_CHECK(cudaEventCreate(&before));
  KT_CUDA_CHECK(cudaEventCreate(&after));
  kerntime::detail::launch_empty_kernels(stream, 10);
  kerntime::testkit::launch_spin(stream, std::chrono::milliseconds(30));
  KT_CUDA_CHECK(cudaEventRecord(before, stream));
  const auto start = clock_type::now();
  kerntime::detail::launch_empty_kernels(stream, launches);
  const double host_ms = ms_since(start);
  KT_CUDA_CHECK(cudaEventRecord(after, stream));
  KT_CUDA_CHECK(cudaStreamSynchronize(stream));
  float gpu_ms = 0;
  KT_CUDA_CHECK(cudaEventElapsedTime(&gpu_ms, before, after));
  KT_CUDA_CHECK(cudaEventDestroy(before));
  KT_CUDA_CHECK(cudaEventDestroy(after));
  kerntime::bench::result_line("launch_after_detach")
      .add("when", when)
      .add("host_us_per_launch", host_ms * 1e3 / launches)
      .add("gpu_us_per_kernel", static_cast<double>(gpu_ms) * 1e3 / launches)
      .print();
}

// DESIGN: a CUDA graph launched between disabling CUPTI's activity and cuptiFinalize failed with
// "unspecified launch failure" every time. Whether it still does, and whether it does once the
// detach has also unsubscribed and CUPTI is only kept initialised (what keeping CUPTI between
// measurements would expose the user's graphs to): one graph of one empty kernel, launched and
// waited for. A failure breaks the context, so each case runs in a process of its own.
// `when`: disabled (launched after the disable, before unsubscribing), kept (after unsubscribing,
// CUPTI not finalized), or captured_under_cupti (captured and instantiated while CUPTI was
// attached, launched after the disable).
int graph_launch_check(const kerntime::detail::cupti_library& cupti, cudaStream_t stream,
                       const std::string& when) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  const auto capture = [&] {
    KT_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    kerntime::detail::launch_empty_kernels(stream, 1);
    KT_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    KT_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  };
  if (when != "captured_under_cupti") {
    capture();
  }
  const std::vector<CUpti_ActivityKind> kinds = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                                 CUPTI_ACTIVITY_KIND_RUNTIME,
                                                 CUPTI_ACTIVITY_KIND_DRIVER};
  constexpr auto untimed = [](const std::string& /*name*/, const auto& step) { step(); };
  const CUpti_SubscriberHandle subscriber =
      kerntime::bench::attach_cupti_steps(cupti, kinds, drop_buffer, untimed);
  if (when == "captured_under_cupti") {
    capture();
  }
  KT_CUDA_CHECK(cudaGraphLaunch(exec, stream)); // under CUPTI: fine
  KT_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (const CUpti_ActivityKind kind : kinds) {
    cupti.activity_disable(kind);
  }
  cupti.activity_flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  if (when == "kept") {
    cupti.unsubscribe(subscriber); // and no cuptiFinalize: CUPTI stays initialised
  }
  const cudaError_t launched = cudaGraphLaunch(exec, stream);
  const cudaError_t finished = cudaStreamSynchronize(stream);
  kerntime::bench::result_line("graph_launch_check")
      .add("when", when)
      .add("launch", cudaGetErrorName(launched))
      .add("synchronize", cudaGetErrorName(finished))
      .print();
  if (when != "kept") {
    cupti.unsubscribe(subscriber);
  }
  cupti.finalize();
  return launched == cudaSuccess && finished == cudaSuccess ? 0 : 3;
}

} // namespace

int main(int argc, char** argv) try {
  using namespace kerntime;
  cudaStream_t stream = nullptr;
  KT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  KT_CUDA_CHECK(cudaFree(nullptr)); // the context, before anything is timed
  if (argc == 3 && std::string(argv[1]) == "--graph-launch-check") {
    // --graph-launch-check disabled|kept|captured_under_cupti
    auto loaded = detail::load_cupti();
    if (const auto* why = std::get_if<std::string>(&loaded)) {
      std::fprintf(stderr, "fixed_cost_parts: CUPTI could not be loaded: %s\n", why->c_str());
      return 1;
    }
    return graph_launch_check(*std::get<const detail::cupti_library*>(loaded), stream, argv[2]);
  }

  print("flush_buffer_made", median_ms([] { detail::l2_flush flush(0); }));
  {
    std::vector<std::unique_ptr<detail::l2_flush>> made;
    print("flush_buffer_alloc_only",
          median_ms([&] { made.push_back(std::make_unique<detail::l2_flush>(0)); }));
    print("flush_buffer_free_only", median_ms([&] { made.pop_back(); }));
  }
  print("reset_persisting_l2", median_ms([] { KT_CUDA_CHECK(cudaCtxResetPersistingL2Cache()); }));
  const protocol defaults;
  print("telemetry_probe_opened_and_closed",
        median_ms([&] { (void)detail::telemetry_probe::open(0, defaults); }));
  print("blocking_kernel_made_and_freed", median_ms([] { detail::blocking_kernel blocker; }));
  print("stall_watchdog_started_and_joined", median_ms([] { detail::stall_watchdog watchdog; }));

  // The telemetry around one trial: the first trial opens the energy window too.
  const auto probe = detail::telemetry_probe::open(0, defaults);
  std::vector<double> first_before;
  std::vector<double> later_before;
  std::vector<double> after;
  for (int i = 0; i < samples; ++i) {
    auto start = clock_type::now();
    probe->before_trial(stream);
    (i == 0 ? first_before : later_before).push_back(ms_since(start));
    start = clock_type::now();
    (void)probe->after_trial(stream);
    after.push_back(ms_since(start));
  }
  print("telemetry_before_first_trial", median(first_before));
  print("telemetry_before_later_trial", median(later_before));
  print("telemetry_after_trial", median(after));
  print("telemetry_close_energy_window", median_ms([&] { probe->close_energy_window(250); }));

  auto loaded = detail::load_cupti();
  if (const auto* why = std::get_if<std::string>(&loaded)) {
    std::fprintf(stderr, "fixed_cost_parts: CUPTI could not be loaded: %s\n", why->c_str());
    return 1;
  }
  const detail::cupti_library& cupti = *std::get<const detail::cupti_library*>(loaded);
  // Three attaches and detaches (round 1 of the first series pays CUPTI's first
  // initialisation), each step a line; `between` runs after each detach.
  const auto attach_rounds = [&](const char* series, bool finalize, const auto& between) {
    for (int round = 1; round <= 3; ++round) {
      for (const auto& [name, ms] : cupti_steps(cupti, stream, finalize)) {
        bench::result_line(series)
            .add("round", static_cast<double>(round))
            .add("step", name)
            .add("ms", ms)
            .print();
      }
      between();
    }
  };
  print_launch_costs("before_cupti", stream);
  attach_rounds("fixed_cost_cupti", true, [] {});
  print_launch_costs("after_finalize", stream);
  // CUPTI kept initialised between attaches (no cuptiFinalize): what attaching again costs, and
  // what a launch costs in between (a kept CUPTI would cost the user's code between measurements).
  attach_rounds("fixed_cost_cupti_kept", false,
                [&] { print_launch_costs("kept_initialised", stream); });
  cupti.finalize();
  print_launch_costs("kept_then_finalized", stream);
  KT_CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "fixed_cost_parts: %s\n", e.what());
  return 1;
}
