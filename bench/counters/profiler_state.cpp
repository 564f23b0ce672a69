// Does the counter pass change timing? One process runs the steps named on the command line, in
// order, each measuring the same works: a chain of 16 memory kernels (where CUPTI's per-kernel
// instrumentation between launches shows in the span) and one 256 MiB copy kernel.
//   plain     measure with CUPTI (no counters)
//   events    measure with CUDA events
//   counters  measure with CUPTI and the counter pass
//   chip      ask CUPTI for the chip's name (profiler initialise + de-initialise), nothing else
//   chipraw   cuptiDeviceGetChipName alone, without initialising the profiler
//   noflush   measure with CUPTI, no L2 flush (is the flush buffer part of a step's history?)
//   sleep:MS  the host sleeps MS milliseconds, the GPU idles
//   realloc   allocates, zeroes and frees a buffer the size of the engine's flush (4 x L2), as a
//             measurement does: does a first measurement read like later ones after it?
// A measuring step may name one work: `plain:chain` or `events:copy` (default: both).
// e.g. `bench_profiler_state plain plain chip plain` or `bench_profiler_state counters plain`;
// `plain:chain plain:chain sleep:1000 plain:chain` asks whether idling undoes a step's history.
// Prints RESULT lines (docs/counters.md).

#include <kerntime/measure.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "counters/counter_pass.hpp"
#include "counters/metric_plan.hpp"
#include "counters/range_profiler_library.hpp"
#include "cuda_check.hpp"
#include "result_line.hpp"
#include "work_kernels.hpp"

namespace {

using namespace kerntime;

constexpr int input_sets = 3;
constexpr std::size_t chain_floats = std::size_t{1} << 20;
constexpr std::size_t copy_floats = std::size_t{64} << 20; // 256 MiB
constexpr int chain_kernels = 16;

void measure_step(const std::string& step, const std::string& work_name,
                  const work_function& work) {
  protocol p;
  p.flush_l2 = step != "noflush";
  if (step == "events") {
    p.backend = backend_request::events;
  } else {
    p.backend = backend_request::cupti;
    p.counters = step == "counters";
  }
  const measurement_result r = measure(work, p);
  bench::result_line("profiler_state")
      .add("step", step)
      .add("work", work_name)
      .add("backend", to_string(r.backend))
      .add("median_us", r.latency_ns / 1e3)
      .add("trial_spread_us", (r.trials_summary.stdev_of_means) / 1e3)
      .add("counters", std::string(to_string(r.counters.status)))
      .print();
}

} // namespace

int main(int argc, char** argv) try {
  device_buffer<float> chain(chain_floats * input_sets);
  device_buffer<float> in(copy_floats * input_sets);
  device_buffer<float> out(copy_floats * input_sets);
  KT_CUDA_CHECK(cudaMemset(chain.data(), 0, chain.bytes()));
  KT_CUDA_CHECK(cudaMemset(in.data(), 0, in.bytes()));
  const work_function chain16 = [&](cudaStream_t s, int set) {
    float* values = chain.data() + chain_floats * static_cast<std::size_t>(set);
    for (int k = 0; k < chain_kernels; ++k) {
      bench::launch_scale(s, values, chain_floats);
    }
  };
  const work_function copy = [&](cudaStream_t s, int set) {
    const std::size_t offset = copy_floats * static_cast<std::size_t>(set);
    bench::launch_copy(s, in.data() + offset, out.data() + offset, copy_floats);
  };
  for (int i = 1; i < argc; ++i) {
    const std::string step = argv[i];
    if (step == "chipraw") {
      const auto loaded = detail::load_range_profiler();
      const auto* rp = std::get_if<const detail::range_profiler_library*>(&loaded);
      CUpti_Device_GetChipName_Params params{};
      params.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
      params.deviceIndex = 0;
      const CUptiResult result =
          rp != nullptr ? (*rp)->device_chip_name(&params) : CUPTI_ERROR_UNKNOWN;
      std::printf("chipraw: result %d, %s\n", static_cast<int>(result),
                  params.pChipName != nullptr ? params.pChipName : "(none)");
      continue;
    }
    if (step == "chip") {
      try {
        std::printf("chip: %s\n", detail::device_chip(0).c_str());
      } catch (const std::exception& e) {
        std::printf("chip: failed: %s\n", e.what());
      }
      continue;
    }
    if (step == "realloc") {
      const device_buffer<char> flush_sized(4 * testkit::l2_bytes());
      KT_CUDA_CHECK(cudaMemset(flush_sized.data(), 0, flush_sized.bytes()));
      KT_CUDA_CHECK(cudaDeviceSynchronize());
      std::printf("allocated, zeroed and freed %zu bytes\n", flush_sized.bytes());
      continue;
    }
    if (step.rfind("sleep:", 0) == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(std::stoi(step.substr(6))));
      std::printf("slept %s ms\n", step.substr(6).c_str());
      continue;
    }
    const std::size_t colon = step.find(':');
    const std::string mode = step.substr(0, colon);
    const std::string only = colon == std::string::npos ? "" : step.substr(colon + 1);
    if (only.empty() || only == "chain") {
      measure_step(mode, "chain16", chain16);
    }
    if (only.empty() || only == "copy") {
      measure_step(mode, "copy256MiB", copy);
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_profiler_state: %s\n", e.what());
  return 1;
}
