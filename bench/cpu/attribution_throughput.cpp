// Record decoding + attribution throughput on the CPU: how many CUPTI records per second kerntime
// turns into per-iteration samples. Records are real CUPTI 13 structs laid out in a buffer, shaped
// like a measurement: per iteration a flush memset, a multi-kernel op, their external-correlation
// tags and the runtime/driver API records CUPTI emits alongside.

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "cupti/record_decoder.hpp"
#include "measure/attribution.hpp"
#include "support/activity_buffer.hpp"

namespace {

struct measurement_records {
  kerntime::testing::activity_buffer buffer;
  kerntime::detail::iteration_layout layout;
  std::vector<std::string> names;
};

measurement_records make_records(int iterations, int kernels_per_iteration) {
  measurement_records m;
  for (int k = 0; k < kernels_per_iteration; ++k) {
    m.names.push_back("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_" +
                      std::to_string(k) + ">(Params)");
  }
  m.layout.repeats = iterations;
  m.layout.trial_first_ids = {1};
  std::uint32_t correlation = 1;
  std::uint64_t t = 1'000'000;
  for (int i = 0; i < iterations; ++i) {
    const auto id = static_cast<std::uint64_t>(i + 1);
    m.buffer.api(CUPTI_ACTIVITY_KIND_RUNTIME, correlation, 1);
    m.buffer.flush_tag(id, correlation);
    m.buffer.memset(t, t + 57'000, correlation++);
    t += 57'000;
    for (int k = 0; k < kernels_per_iteration; ++k) {
      m.buffer.api(CUPTI_ACTIVITY_KIND_RUNTIME, correlation, 1);
      m.buffer.api(CUPTI_ACTIVITY_KIND_DRIVER, correlation, 1);
      m.buffer.iteration_tag(id, correlation);
      m.buffer.kernel(m.names[static_cast<std::size_t>(k)].c_str(), t, t + 5'000, correlation++);
      t += 5'000;
    }
  }
  return m;
}

void decode_and_attribute(benchmark::State& state) {
  const auto m = make_records(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  const auto records = m.buffer.records();
  for (auto _ : state) {
    kerntime::detail::activity_log log;
    kerntime::detail::record_decoder decoder(log);
    for (const auto* record : records) {
      decoder.decode(*record);
    }
    auto result = kerntime::detail::attribute(log, m.layout);
    benchmark::DoNotOptimize(result);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(records.size()));
  state.counters["records"] = static_cast<double>(records.size());
}

// The default protocol (250 measured iterations) with 1 and 8 kernels per iteration, and a long
// measurement of 10 000 iterations.
BENCHMARK(decode_and_attribute)->Args({250, 1})->Args({250, 8})->Args({10000, 8});

} // namespace

BENCHMARK_MAIN();
