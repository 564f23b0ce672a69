// What CUPTI costs the host per launch, by the activity kinds enabled: the host time of one empty
// kernel launch with no CUPTI, with kernel records only, and adding kerntime's other kinds one by
// one (memset and memcpy, runtime, driver, external correlation with the two pushes and pops an
// iteration makes); then one kerntime iteration as the engine queues it (flush, tags, work).
// Also the cost of attaching and detaching CUPTI (subscribe .. finalize), which every measurement
// pays, and the records delivered by kind (do tags come without API records?). Launches are timed
// in batches the GPU drains between, so no launch waits for a full queue.
// Beside that, the engine's way to tag in its trials: callbacks on the calls it watches (CUPTI's
// callback API; no API records, no external correlation), checked for covering every kernel, and
// both ways with PyTorch's pattern of several cheap runtime calls around each launch
// (docs/queue.md).

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
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "cupti/cupti_library.hpp"
#include "cupti/watched_calls.hpp"
#include "cupti_steps.hpp"
#include "flush/l2_flush.hpp"
#include "kerntime/statistics.hpp"
#include "result_line.hpp"
#include "spin_kernel.hpp"

namespace {

using kerntime::detail::cupti_library;
using clock_type = std::chrono::steady_clock;

constexpr int batch = 200;  // launches queued before the GPU is drained (far below the queue)
constexpr int batches = 50; // per sample
constexpr int samples = 5;

// Records delivered, by kind: whether external-correlation records still come when no API kind
// is enabled (kerntime's tags need them).
const cupti_library* loaded_cupti = nullptr;
std::array<std::atomic<long>, 4> delivered{}; // kernel, runtime, driver, external correlation
std::mutex kernel_ids_mutex;
std::vector<std::uint32_t> kernel_ids; // the kernel records' correlation ids (coverage check)

// Tagging by callbacks: each launch call's correlation id with the tag current when it was made,
// and its end (what the host-gap rule needs). The callback runs inside the call, on the launching
// thread, which is this benchmark's only one.
struct tagged_call {
  std::uint32_t correlation = 0;
  std::uint64_t tag = 0;
  std::uint64_t end_ns = 0;
};
std::vector<tagged_call> tagged_calls;
std::uint64_t current_tag = 0;

void CUPTIAPI tag_launch(void* /*userdata*/, CUpti_CallbackDomain /*domain*/,
                         CUpti_CallbackId /*cbid*/, const void* data) {
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  if (call->callbackSite == CUPTI_API_ENTER) {
    tagged_calls.push_back({call->correlationId, current_tag, 0});
    return;
  }
  std::uint64_t now = 0;
  loaded_cupti->get_timestamp(&now);
  for (auto it = tagged_calls.rbegin(); it != tagged_calls.rend(); ++it) {
    if (it->correlation == call->correlationId) {
      it->end_ns = now;
      break;
    }
  }
}

// The calls the engine watches in its trials when the first calls saw only kernels: every launch
// and every call that makes the host wait (cupti/watched_calls.hpp).
void enable_launch_callbacks(CUpti_SubscriberHandle subscriber) {
  for (const auto& call : kerntime::detail::calls_to_watch({})) {
    kerntime::bench::check_cupti(
        loaded_cupti->enable_callback(1, subscriber, call.domain, call.cbid),
        "cuptiEnableCallback");
  }
}

// Kernel records whose correlation id no launch callback saw.
long kernels_without_a_callback_tag() {
  std::vector<std::uint32_t> seen;
  seen.reserve(tagged_calls.size());
  for (const tagged_call& call : tagged_calls) {
    seen.push_back(call.correlation);
  }
  std::sort(seen.begin(), seen.end());
  const std::lock_guard lock(kernel_ids_mutex);
  return std::count_if(kernel_ids.begin(), kernel_ids.end(), [&](std::uint32_t id) {
    return !std::binary_search(seen.begin(), seen.end(), id);
  });
}

void CUPTIAPI count_and_free(CUcontext /*context*/, std::uint32_t /*stream*/, std::uint8_t* buffer,
                             std::size_t /*size*/, std::size_t valid) {
  CUpti_Activity* record = nullptr;
  while (loaded_cupti->activity_get_next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      ++delivered[0];
      const std::lock_guard lock(kernel_ids_mutex);
      kernel_ids.push_back(reinterpret_cast<const CUpti_ActivityKernel10*>(record)->correlationId);
      break;
    }
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
  bool callback_tags = false;            // tag through callbacks on the launch calls instead
  int runtime_calls = 0; // cheap runtime calls before each launch (PyTorch makes ~5 per launch)
};

// CUPTI attached with `kinds` for the life of the object; how long attaching and detaching took.
class attached_cupti {
public:
  attached_cupti(const cupti_library& cupti, const std::vector<CUpti_ActivityKind>& kinds,
                 bool callback_tags)
      : cupti_(cupti), kinds_(kinds) {
    const auto start = clock_type::now();
    subscriber_ = kerntime::bench::attach_cupti_steps(
        cupti_, kinds_, count_and_free, run_step,
        callback_tags ? tag_launch : kerntime::detail::ignore_cupti_callback);
    if (callback_tags) {
      enable_launch_callbacks(subscriber_);
    }
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
  if (cupti.enable_callback == nullptr || cupti.get_timestamp == nullptr) {
    std::fprintf(stderr, "launch_cost: the loaded CUPTI lacks cuptiEnableCallback or "
                         "cuptiGetTimestamp; set KERNTIME_CUPTI_PATH to a CUPTI 13\n");
    return 1;
  }
  tagged_calls.reserve(1U << 20);
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
      // Driver records alone: a tag per driver call, but a runtime launch's kernel carries the
      // runtime call's correlation id, which no record then tags (docs/queue.md).
      {"driver_tags",
       with(copies, {CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION}), true},
      {"tags_without_api_kinds", with(copies, {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION}), true},
      {"callback_tags", copies, false, true},
      // PyTorch's pattern: cheap runtime calls around each launch (device, last error).
      {"none_5_runtime_calls", {}, false, false, 5},
      {"kerntime_kinds_tags_5_runtime_calls", kerntime_kinds, true, false, 5},
      {"callback_tags_5_runtime_calls", copies, false, true, 5},
  };

  // Twice over, to see that the order does not matter.
  for (int round = 1; round <= 2; ++round) {
    for (const configuration& c : configurations) {
      for (auto& count : delivered) {
        count = 0;
      }
      kernel_ids.clear();
      tagged_calls.clear();
      std::optional<attached_cupti> attached;
      if (!c.kinds.empty()) {
        attached.emplace(cupti, c.kinds, c.callback_tags);
      }
      std::uint64_t id = 0;
      const double launch_us = host_us_per_call(stream, [&] {
        for (int k = 0; k < c.runtime_calls; ++k) {
          int device = 0;
          (void)(k % 2 == 0 ? cudaGetDevice(&device) : cudaGetLastError());
        }
        current_tag = ++id;
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
        if (c.callback_tags) {
          current_tag = ++id;
          flush.enqueue(stream);
          current_tag = ++id;
          kerntime::testkit::launch_empty(stream);
          return;
        }
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
          .add("callback_tagged_calls",
               c.callback_tags ? static_cast<double>(tagged_calls.size()) : 0.0)
          .add("kernels_without_callback_tag",
               c.callback_tags ? static_cast<double>(kernels_without_a_callback_tag()) : 0.0)
          .print();
    }
  }
  KT_CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "launch_cost: %s\n", e.what());
  return 1;
}
