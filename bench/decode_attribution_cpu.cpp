// CPU throughput of the record path: CUPTI activity records (the CUPTI 13.0 structs, laid out as
// CUPTI writes them) decoded into an activity log, then attributed to iterations. The default
// protocol's worth of records per run: 251 iterations, each a tagged flush memset and two tagged
// kernels with their runtime and driver API records. Target: >= 1 M records/s (aim >= 5 M).

#include <benchmark/benchmark.h>
#include <cupti_activity.h>

#include <cstdint>
#include <deque>
#include <vector>

#include "cupti/activity_log.hpp"
#include "cupti/record_decoder.hpp"
#include "measure/attribution.hpp"

namespace {

using namespace kerntime::detail;

constexpr int trials = 5;
constexpr int repeats = 50;
constexpr std::uint32_t thread_id = 4242;

// Records of one measurement, in the order CUPTI delivers them (API records, then GPU records).
class recorded_measurement {
public:
  recorded_measurement() {
    const int iterations = 1 + trials * repeats; // the discarded one first
    std::uint32_t correlation = 1;
    for (int i = 0; i < iterations; ++i) {
      const std::uint64_t id = static_cast<std::uint64_t>(i) + 1;
      const std::uint64_t base = 1'000'000'000ull + id * 100'000;
      add_memset(base, base + 50'000, correlation, id);
      ++correlation;
      add_kernel("void gemm_kernel<128, 64>(float const*, float*, int)", base + 50'100,
                 base + 60'000, correlation, id);
      ++correlation;
      add_kernel("void epilogue_kernel<float>(float*, int)", base + 60'100, base + 62'000,
                 correlation, id);
      ++correlation;
    }
    layout_.repeats = repeats;
    layout_.ignored.insert(1);
    for (int t = 0; t < trials; ++t) {
      layout_.trial_first_ids.push_back(2 + static_cast<std::uint64_t>(t) * repeats);
    }
  }

  [[nodiscard]] const std::vector<const CUpti_Activity*>& records() const { return records_; }
  [[nodiscard]] const iteration_layout& layout() const { return layout_; }

private:
  void add_api(CUpti_ActivityKind kind, std::uint32_t correlation) {
    CUpti_ActivityAPI& a = apis_.emplace_back();
    a.kind = kind;
    a.correlationId = correlation;
    a.threadId = thread_id;
    records_.push_back(reinterpret_cast<const CUpti_Activity*>(&a));
  }

  void add_tag(CUpti_ExternalCorrelationKind kind, std::uint64_t id, std::uint32_t correlation) {
    CUpti_ActivityExternalCorrelation& e = tags_.emplace_back();
    e.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
    e.externalKind = kind;
    e.externalId = id;
    e.correlationId = correlation;
    records_.push_back(reinterpret_cast<const CUpti_Activity*>(&e));
  }

  void add_memset(std::uint64_t start, std::uint64_t end, std::uint32_t correlation,
                  std::uint64_t id) {
    add_tag(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, id, correlation);
    add_api(CUPTI_ACTIVITY_KIND_RUNTIME, correlation);
    CUpti_ActivityMemset4& m = memsets_.emplace_back();
    m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    m.start = start;
    m.end = end;
    m.correlationId = correlation;
    m.streamId = 13;
    records_.push_back(reinterpret_cast<const CUpti_Activity*>(&m));
  }

  void add_kernel(const char* name, std::uint64_t start, std::uint64_t end,
                  std::uint32_t correlation, std::uint64_t id) {
    add_tag(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id, correlation);
    add_api(CUPTI_ACTIVITY_KIND_RUNTIME, correlation);
    add_api(CUPTI_ACTIVITY_KIND_DRIVER, correlation);
    CUpti_ActivityKernel10& k = kernels_.emplace_back();
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = start;
    k.end = end;
    k.correlationId = correlation;
    k.streamId = 13;
    k.name = name;
    records_.push_back(reinterpret_cast<const CUpti_Activity*>(&k));
  }

  // deques: records keep their addresses while more are added.
  std::deque<CUpti_ActivityAPI> apis_;
  std::deque<CUpti_ActivityExternalCorrelation> tags_;
  std::deque<CUpti_ActivityMemset4> memsets_;
  std::deque<CUpti_ActivityKernel10> kernels_;
  std::vector<const CUpti_Activity*> records_;
  iteration_layout layout_;
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
  for (auto _ : state) {
    activity_log log = decode_all(measurement.records());
    benchmark::DoNotOptimize(log.gpu.data());
  }
  state.SetItemsProcessed(state.iterations() *
                          static_cast<std::int64_t>(measurement.records().size()));
}

void decode_and_attribute_records(benchmark::State& state) {
  const recorded_measurement measurement;
  for (auto _ : state) {
    const activity_log log = decode_all(measurement.records());
    attribution a = attribute(log, measurement.layout());
    benchmark::DoNotOptimize(a.trials.data());
  }
  state.SetItemsProcessed(state.iterations() *
                          static_cast<std::int64_t>(measurement.records().size()));
}

BENCHMARK(decode_records);
BENCHMARK(decode_and_attribute_records);

} // namespace

BENCHMARK_MAIN();
