// Record decoding + attribution throughput on the CPU: how many CUPTI records per second kerntime
// turns into per-iteration samples. The records are real CUPTI 13 structs laid out in a buffer by
// the tests' activity_buffer, shaped like a default-protocol measurement: per iteration a tagged
// flush memset and two tagged kernels, each with the runtime/driver API records CUPTI emits.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "activity_buffer.hpp"
#include "attribution/attribution.hpp"
#include "cupti/activity_log.hpp"
#include "cupti/record_decoder.hpp"

namespace {

using namespace kerntime::detail;

constexpr int trials = 5;
constexpr int repeats = 50;
constexpr std::uint32_t thread_id = 4242;

struct recorded_measurement {
  kerntime::testing::activity_buffer buffer;
  iteration_layout layout;

  recorded_measurement() {
    const int iterations = 1 + trials * repeats; // the discarded one first
    std::uint32_t correlation = 1;
    for (int i = 0; i < iterations; ++i) {
      const std::uint64_t id = static_cast<std::uint64_t>(i) + 1;
      const std::uint64_t base = 1'000'000'000ULL + id * 100'000;
      buffer.flush_tag(id, correlation);
      buffer.api(CUPTI_ACTIVITY_KIND_RUNTIME, correlation, thread_id);
      buffer.memset(base, base + 50'000, correlation++);
      add_kernel("void gemm_kernel<128, 64>(float const*, float*, int)", base + 50'100,
                 base + 60'000, correlation++, id);
      add_kernel("void epilogue_kernel<float>(float*, int)", base + 60'100, base + 62'000,
                 correlation++, id);
    }
    layout.repeats = repeats;
    layout.ignored.insert(1);
    for (int t = 0; t < trials; ++t) {
      layout.trial_first_ids.push_back(2 + static_cast<std::uint64_t>(t) * repeats);
    }
  }

  void add_kernel(const char* name, std::uint64_t start, std::uint64_t end,
                  std::uint32_t correlation, std::uint64_t id) {
    buffer.iteration_tag(id, correlation);
    buffer.api(CUPTI_ACTIVITY_KIND_RUNTIME, correlation, thread_id);
    buffer.api(CUPTI_ACTIVITY_KIND_DRIVER, correlation, thread_id);
    buffer.kernel(name, start, end, correlation);
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

BENCHMARK(decode_records);
BENCHMARK(decode_and_attribute_records);

} // namespace

BENCHMARK_MAIN();
