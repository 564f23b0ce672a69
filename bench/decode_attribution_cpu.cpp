// Record decoding + attribution throughput on the CPU: how many CUPTI records per second kerntime
// turns into per-iteration samples. The records are real CUPTI 13 structs laid out in a buffer by
// the tests' activity_buffer, shaped like a default-protocol measurement: per iteration a tagged
// flush memset and two tagged kernels, each with the runtime/driver API records CUPTI emits.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "activity_buffer.hpp"
#include "attribution/attribution.hpp"
#include "attribution/work_behaviour.hpp"
#include "cupti/activity_log.hpp"
#include "cupti/record_decoder.hpp"
#include "result/summarise.hpp"

namespace {

using namespace kerntime::detail;

constexpr int trials = 5;
constexpr int default_repeats = 50;
constexpr std::uint32_t thread_id = 4242;

struct recorded_measurement {
  kerntime::testing::activity_buffer buffer;
  iteration_layout layout;
  std::uint32_t correlation = 1;

  // `kernels` kernels per iteration after the flush memset; `repeats` iterations per trial.
  explicit recorded_measurement(int kernels = 2, int repeats = default_repeats) {
    const int iterations = 1 + trials * repeats; // the discarded one first
    const std::uint64_t step = 2'000 * static_cast<std::uint64_t>(kernels) + 60'000;
    for (int i = 0; i < iterations; ++i) {
      const std::uint64_t id = static_cast<std::uint64_t>(i) + 1;
      const std::uint64_t base = 1'000'000'000ULL + id * step;
      buffer.flush_tag(id, correlation);
      buffer.api(CUPTI_ACTIVITY_KIND_RUNTIME, correlation, thread_id, 0, base - 9'000,
                 base - 8'000);
      buffer.memset(base, base + 50'000, correlation++);
      std::uint64_t start = base + 50'100;
      for (int k = 0; k < kernels; ++k) {
        add_kernel(k == 0 ? "void gemm_kernel<128, 64>(float const*, float*, int)"
                          : "void epilogue_kernel<float>(float*, int)",
                   start, start + 1'800, id, base - 7'000);
        start += 2'000;
      }
    }
    layout.repeats = repeats;
    layout.ignored.insert(1);
    for (int t = 0; t < trials; ++t) {
      layout.trial_first_ids.push_back(2 + static_cast<std::uint64_t>(t) * repeats);
    }
  }

  void add_kernel(const char* name, std::uint64_t start, std::uint64_t end, std::uint64_t id,
                  std::uint64_t host_call) {
    buffer.iteration_tag(id, correlation);
    buffer.api(CUPTI_ACTIVITY_KIND_RUNTIME, correlation, thread_id, 0, host_call, host_call + 500);
    buffer.api(CUPTI_ACTIVITY_KIND_DRIVER, correlation, thread_id, 0, host_call + 100,
               host_call + 400);
    buffer.kernel(name, start, end, correlation++);
  }
};

activity_log decode_all(const std::vector<const CUpti_Activity*>& records) {
  activity_log log;
  record_decoder decoder(log);
  for (const CUpti_Activity* record : records) {
    decoder.decode(*record);
  }
  return log;
}

void decode_records(benchmark::State& state) {
  const recorded_measurement measurement;
  const auto records = measurement.buffer.records();
  for (auto _ : state) {
    activity_log log = decode_all(records);
    benchmark::DoNotOptimize(log.gpu.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(records.size()));
}

void decode_and_attribute_records(benchmark::State& state) {
  const recorded_measurement measurement;
  const auto records = measurement.buffer.records();
  for (auto _ : state) {
    const activity_log log = decode_all(records);
    timed_trials a = attribute(log, measurement.layout);
    benchmark::DoNotOptimize(a.trials.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(records.size()));
}

// Everything the engine does with the records after the trials: decode, attribute, judge the
// work, summarise. Shaped like torch.topk (22 kernels per iteration, 50 repeats) and like a tiny
// op at 2,000 repeats (docs/queue.md).
void records_to_result(benchmark::State& state) {
  const recorded_measurement measurement(static_cast<int>(state.range(0)),
                                         static_cast<int>(state.range(1)));
  const auto records = measurement.buffer.records();
  kerntime::protocol p;
  p.repeats = static_cast<int>(state.range(1));
  for (auto _ : state) {
    const activity_log log = decode_all(records);
    timed_trials timed = attribute(log, measurement.layout);
    timed.work = judge_work(log, measurement.layout);
    kerntime::measurement_result r = summarise_samples(std::move(timed), p);
    benchmark::DoNotOptimize(r.latency_ns);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(records.size()));
}

BENCHMARK(decode_records);
BENCHMARK(decode_and_attribute_records);
BENCHMARK(records_to_result)->Args({22, 50})->Args({1, 2000})->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
