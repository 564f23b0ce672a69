// What CUPTI costs the host per launch, by the activity kinds enabled: the host time of one empty
// kernel launch with no CUPTI, with kernel records only, and adding kerntime's other kinds one by
// one (memset and memcpy, runtime, driver, external correlation with the two pushes and pops an
// iteration makes); then one kerntime iteration as the engine queues it (flush, tags, work).
// Also the cost of attaching and detaching CUPTI (subscribe .. finalize), which every measurement
// pays, and the records delivered by kind (do tags come without API records?). Launches are timed
// in batches the GPU drains between, so no launch waits for a full queue.

#include <cuda_runtime_api.h>
#include <cupti.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "cupti/cupti_library.hpp"
#include "cupti_steps.hpp"
#include "flush/l2_flush.hpp"
#include "kerntime/statistics.hpp"
#include "result_line.hpp"
#include "spin_kernel.hpp"

namespace {

using kerntime::detail::cupti_library;
using clock_type = std::chrono::steady_clock;

constexpr int batch = 200;   // launches queued before the GPU is drained (far below the queue)
constexpr int batches = 100; // per sample
constexpr int samples = 5;

// Records delivered, by kind: whether external-correlation records still come when no API kind
// is enabled (kerntime's tags need them).
const cupti_library* loaded_cupti = nullptr;
std::array<std::atomic<long>, 4> delivered{}; // kernel, runtime, driver, external correlation

void CUPTIAPI count_and_free(CUcontext /*context*/, std::uint32_t /*stream*/, std::uint8_t* buffer,
                             std::size_t /*size*/, std::size_t valid) {
  CUpti_Activity* record = nullptr;
  while (loaded_cupti->activity_get_next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      ++delivered[0];
      break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      ++delivered[1];
      break;
    case CUPTI_ACTIVITY_KIND_DRIVER:
      ++delivered[2];
      break;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      ++delivered[3];
      break;
    default:
      break;
    }
  }
  std::free(buffer);
}

// Each attach and detach step, untimed: this benchmark times them as a whole.
constexpr auto run_step = [](const std::string& /*name*/, const auto& action) { action(); };

struct configuration {
  std::string name;
  std::vector<CUpti_ActivityKind> kinds; // empty: CUPTI not attached
  bool tags = false;                     // push and pop two external-correlation ids per launch
};

// CUPTI attached with `kinds` for the life of the object; how long attaching and detaching took.
class attached_cupti {
public:
  attached_cupti(const cupti_library& cupti, const std::vector<CUpti_ActivityKind>& kinds)
      : cupti_(cupti), kinds_(kinds) {
    const auto start = clock_type::now();
    subscriber_ = kerntime::bench::attach_cupti_steps(cupti_, kinds_, count_and_free, run_step);
    attach_ms_ = std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
  }
  ~attached_cupti() { (void)detach(); }
  attached_cupti(const attached_cupti&) = delete;
  attached_cupti& operator=(const attached_cupti&) = delete;

  // Disable, flush, unsubscribe, finalize: what a measurement's detach does. Milliseconds.
  double detach() {
    if (subscriber_ == nullptr) {
      return 0;
    }
    const auto start = clock_type::now();
    kerntime::bench::detach_cupti_steps(cupti_, subscriber_, kinds_, run_step);
    subscriber_ = nullptr;
    return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
  }
  [[nodiscard]] double attach_ms() const { return attach_ms_; }

private:
  const cupti_library& cupti_;
  std::vector<CUpti_ActivityKind> kinds_;
  CUpti_SubscriberHandle subscriber_ = nullptr;
  double attach_ms_ = 0;
};

// Host microseconds per call of `launch`, the median of `samples` samples.
double host_us_per_call(cudaStream_t stream, const std::function<void()>& launch) {
  for (int i = 0; i < batch; ++i) { // warm: module loading, first-launch costs
    launch();
  }
  KT_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> per_call;
  for (int s = 0; s < samples; ++s) {
    clock_type::duration spent{};
    for (int b = 0; b < batches; ++b) {
      const auto start = clock_type::now();
      for (int i = 0; i < batch; ++i) {
        launch();
      }
      spent += clock_type::now() - start;
      KT_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    per_call.push_back(std::chrono::duration<double, std::micro>(spent).count() /
                       (batch * batches));
  }
  return kerntime::median(per_call);
}

} // namespace

int main() try {
  auto loaded = kerntime::detail::load_cupti();
  if (const auto* why = std::get_if<std::string>(&loaded)) {
    std::fprintf(stderr, "launch_cost: CUPTI could not be loaded: %s\n", why->c_str());
    return 1;
  }
  const cupti_library& cupti = *std::get<const cupti_library*>(loaded);
  loaded_cupti = &cupti;
  cudaStream_t stream = nullptr;
  KT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  kerntime::detail::l2_flush flush(0);

  const std::vector<CUpti_ActivityKind> kernel = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL};
  auto with = [](std::vector<CUpti_ActivityKind> kinds, std::vector<CUpti_ActivityKind> more) {
    kinds.insert(kinds.end(), more.begin(), more.end());
    return kinds;
  };
  const auto copies = with(kernel, {CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMCPY});
  const auto runtime = with(copies, {CUPTI_ACTIVITY_KIND_RUNTIME});
  const auto driver = with(runtime, {CUPTI_ACTIVITY_KIND_DRIVER});
  const auto kerntime_kinds = with(driver, {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION});
  const std::vector<configuration> configurations = {
      {"none", {}, false},
      {"kernel", kernel, false},
      {"kernel_memset_memcpy", copies, false},
      {"runtime", runtime, false},
      {"runtime_driver", driver, false},
      {"kerntime_kinds", kerntime_kinds, false},
      {"kerntime_kinds_tags", kerntime_kinds, true},
      {"driver_no_runtime", with(copies, {CUPTI_ACTIVITY_KIND_DRIVER}), false},
      {"tags_without_api_kinds", with(copies, {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION}), true},
  };

  // Twice over, to see that the order does not matter.
  for (int round = 1; round <= 2; ++round) {
    for (const configuration& c : configurations) {
      for (auto& count : delivered) {
        count = 0;
      }
      std::optional<attached_cupti> attached;
      if (!c.kinds.empty()) {
        attached.emplace(cupti, c.kinds);
      }
      std::uint64_t id = 0;
      const double launch_us = host_us_per_call(stream, [&] {
        if (c.tags) {
          cupti.push_external_correlation_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, ++id);
          cupti.pop_external_correlation_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, &id);
          cupti.push_external_correlation_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, ++id);
        }
        kerntime::testkit::launch_empty(stream);
        if (c.tags) {
          cupti.pop_external_correlation_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, &id);
        }
      });
      // One iteration as the engine queues it: the flush under its tag, the work under its own.
      const double iteration_us = host_us_per_call(stream, [&] {
        cupti.push_external_correlation_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, ++id);
        flush.enqueue(stream);
        cupti.pop_external_correlation_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, &id);
        cupti.push_external_correlation_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, ++id);
        kerntime::testkit::launch_empty(stream);
        cupti.pop_external_correlation_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, &id);
      });
      const double attach_ms = attached ? attached->attach_ms() : 0.0;
      const double detach_ms = attached ? attached->detach() : 0.0;
      kerntime::bench::result_line("launch_cost")
          .add("round", static_cast<double>(round))
          .add("kinds", c.name)
          .add("launch_us", launch_us)
          .add("flushed_iteration_us", iteration_us)
          .add("attach_ms", attach_ms)
          .add("detach_ms", detach_ms)
          .add("kernel_records", static_cast<double>(delivered[0]))
          .add("runtime_records", static_cast<double>(delivered[1]))
          .add("driver_records", static_cast<double>(delivered[2]))
          .add("external_correlation_records", static_cast<double>(delivered[3]))
          .print();
    }
  }
  KT_CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "launch_cost: %s\n", e.what());
  return 1;
}
