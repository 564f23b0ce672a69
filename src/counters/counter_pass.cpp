#include "counters/counter_pass.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <utility>
#include <variant>

#include "counters/counter_failure.hpp"
#include "counters/host_object.hpp"
#include "counters/range_profiler_library.hpp"
#include "cupti/cupti_library.hpp"
#include "cupti/cupti_scope.hpp"
#include "cupti/current_context.hpp"
#include "kerntime/counters.hpp"

namespace kerntime::detail {
namespace {

// A subscription of the process's own for the life of the object, only so that CUPTI is
// initialised (after an earlier measurement finalised it); unsubscribed and released again at
// the end, as timing leaves CUPTI (finalized outside a scope, cupti/cupti_scope.hpp).
class initialising_subscription {
public:
  explicit initialising_subscription(const cupti_library& cupti);
  ~initialising_subscription() {
    (void)cupti_.unsubscribe(subscriber_);
    (void)release_cupti(cupti_);
  }
  initialising_subscription(const initialising_subscription&) = delete;
  initialising_subscription& operator=(const initialising_subscription&) = delete;

private:
  const cupti_library& cupti_;
  CUpti_SubscriberHandle subscriber_ = nullptr;
};

// A CUPTI call of the pass failed: the code and the step say why (counter_failure_reason).
struct step_failed {
  CUptiResult code;
  counter_step step;
};

void check(CUptiResult code, counter_step step) {
  if (code != CUPTI_SUCCESS) {
    throw step_failed{code, step};
  }
}

initialising_subscription::initialising_subscription(const cupti_library& cupti) : cupti_(cupti) {
  check(cupti_.subscribe(&subscriber_, ignore_cupti_callback, nullptr),
        counter_step::profiler_initialise);
}

const range_profiler_library& range_profiler() {
  const auto loaded = load_range_profiler();
  if (const auto* why = std::get_if<std::string>(&loaded)) {
    throw counters_unavailable(*why);
  }
  return *std::get<const range_profiler_library*>(loaded);
}

const profiler_host_library& profiler_host() {
  const auto loaded = load_profiler_host();
  if (const auto* why = std::get_if<std::string>(&loaded)) {
    throw counters_unavailable(*why);
  }
  return *std::get<const profiler_host_library*>(loaded);
}

// cuptiProfilerInitialize for the scope of the pass.
class profiler_scope {
public:
  explicit profiler_scope(const range_profiler_library& rp) : rp_(rp) {
    auto params = profiler_params<CUpti_Profiler_Initialize_Params>(
        CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    check(rp_.profiler_initialize(&params), counter_step::profiler_initialise);
  }
  profiler_scope(const profiler_scope&) = delete;
  profiler_scope& operator=(const profiler_scope&) = delete;
  profiler_scope(profiler_scope&&) = delete;
  profiler_scope& operator=(profiler_scope&&) = delete;
  ~profiler_scope() {
    auto params = profiler_params<CUpti_Profiler_DeInitialize_Params>(
        CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
    (void)rp_.profiler_deinitialize(&params);
  }

private:
  const range_profiler_library& rp_;
};

// The range profiler enabled on a context for the scope.
class range_profiler_scope {
public:
  range_profiler_scope(const range_profiler_library& rp, CUcontext context) : rp_(rp) {
    auto params = profiler_params<CUpti_RangeProfiler_Enable_Params>(
        CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    params.ctx = context;
    check(rp_.enable(&params), counter_step::enable);
    object_ = params.pRangeProfilerObject;
  }
  range_profiler_scope(const range_profiler_scope&) = delete;
  range_profiler_scope& operator=(const range_profiler_scope&) = delete;
  range_profiler_scope(range_profiler_scope&&) = delete;
  range_profiler_scope& operator=(range_profiler_scope&&) = delete;
  ~range_profiler_scope() {
    auto params = profiler_params<CUpti_RangeProfiler_Disable_Params>(
        CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    params.pRangeProfilerObject = object_;
    (void)rp_.disable(&params);
  }
  [[nodiscard]] CUpti_RangeProfiler_Object* get() const noexcept { return object_; }

private:
  const range_profiler_library& rp_;
  CUpti_RangeProfiler_Object* object_ = nullptr;
};

std::string support_word(CUpti_Profiler_Support_Level level) {
  switch (level) {
  case CUPTI_PROFILER_CONFIGURATION_UNKNOWN:
    return "unknown";
  case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED:
    return "unsupported";
  case CUPTI_PROFILER_CONFIGURATION_DISABLED:
    return "disabled";
  case CUPTI_PROFILER_CONFIGURATION_SUPPORTED:
    return "supported";
  }
  return "unknown";
}

// Empty when the device can be profiled; otherwise why, naming cuptiProfilerDeviceSupported's
// field that said no.
std::optional<std::string> device_problem(const range_profiler_library& rp, int ordinal) {
  auto params = profiler_params<CUpti_Profiler_DeviceSupported_Params>(
      CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
  params.cuDevice = static_cast<CUdevice>(ordinal);
  params.api = CUPTI_PROFILER_RANGE_PROFILING;
  check(rp.device_supported(&params), counter_step::device_check);
  if (params.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
    return std::nullopt;
  }
  struct field {
    const char* name;
    CUpti_Profiler_Support_Level level;
    const char* meaning;
  };
  const field fields[] = {
      {"architecture", params.architecture,
       "the GPU's architecture is older than the profiling API supports (compute capability 7.0 "
       "or later)"},
      {"sli", params.sli, "SLI is enabled, and CUPTI does not profile SLI devices"},
      {"vGpu", params.vGpu,
       "a virtual GPU: profiling is not supported on it, or the hypervisor has not enabled it"},
      {"confidentialCompute", params.confidentialCompute,
       "confidential computing mode is on, which forbids profiling"},
      {"cmp", params.cmp, "an NVIDIA Crypto Mining Processor, which CUPTI does not profile"},
      {"wsl", params.wsl, "CUPTI does not profile this GPU under WSL"},
  };
  for (const auto& f : fields) {
    if (f.level != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
      return fmt::format("unsupported device: {} (cuptiProfilerDeviceSupported: {} = {})",
                         f.meaning, f.name, support_word(f.level));
    }
  }
  return fmt::format("unsupported device: cuptiProfilerDeviceSupported says {} without naming a "
                     "reason",
                     support_word(params.isSupported));
}

std::string chip_name(const range_profiler_library& rp, int ordinal) {
  auto params =
      profiler_params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  params.deviceIndex = static_cast<std::size_t>(ordinal);
  check(rp.device_chip_name(&params), counter_step::device_check);
  return params.pChipName != nullptr ? params.pChipName : "";
}

std::vector<const char*> c_names(const std::vector<std::string>& names) {
  std::vector<const char*> pointers;
  pointers.reserve(names.size());
  for (const auto& name : names) {
    pointers.push_back(name.c_str());
  }
  return pointers;
}

// The counter data image, sized and initialised for `ranges` ranges of `metrics`.
std::vector<std::uint8_t> counter_data_image(const range_profiler_library& rp,
                                             CUpti_RangeProfiler_Object* object,
                                             std::vector<const char*>& metrics,
                                             std::size_t ranges) {
  auto size = profiler_params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  size.pRangeProfilerObject = object;
  size.pMetricNames = metrics.data();
  size.numMetrics = metrics.size();
  size.maxNumOfRanges = ranges;
  size.maxNumRangeTreeNodes = static_cast<std::uint32_t>(ranges);
  check(rp.counter_data_size(&size), counter_step::set_config);
  std::vector<std::uint8_t> image(size.counterDataSize);
  auto init = profiler_params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  init.pRangeProfilerObject = object;
  init.counterDataSize = image.size();
  init.pCounterData = image.data();
  check(rp.counter_data_initialize(&init), counter_step::set_config);
  return image;
}

void collect(const counter_pass_request& request, const std::function<void()>& prepare,
             const std::function<void()>& work, const std::function<void()>& synchronize,
             counter_pass_outcome& out) {
  const range_profiler_library& rp = range_profiler();
  const profiler_host_library& host = profiler_host();
  const profiler_scope profiler(rp);
  if (auto problem = device_problem(rp, request.device_ordinal)) {
    throw counters_unavailable(*problem);
  }
  out.chip = chip_name(rp, request.device_ordinal);
  host_object config(host, out.chip);
  std::vector<const char*> metrics = c_names(out.metrics);
  if (!config.add_metrics(metrics)) {
    throw step_failed{CUPTI_ERROR_INVALID_PARAMETER, counter_step::set_config};
  }
  const std::vector<std::uint8_t> config_image = config.config_image();
  out.passes = config.passes(config_image);

  const CUcontext context = current_context();
  if (context == nullptr) {
    throw counters_unavailable("no CUDA context is current on the measuring thread");
  }
  const range_profiler_scope session(rp, context);
  // Room for every launch of the iteration and more: launches past it would be dropped (and
  // counted), never written out of bounds.
  const std::size_t max_ranges = std::max<std::size_t>(request.expected_ranges * 2, 64);
  std::vector<std::uint8_t> data = counter_data_image(rp, session.get(), metrics, max_ranges);

  auto set = profiler_params<CUpti_RangeProfiler_SetConfig_Params>(
      CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  set.pRangeProfilerObject = session.get();
  set.configSize = config_image.size();
  set.pConfig = config_image.data();
  set.counterDataImageSize = data.size();
  set.pCounterDataImage = data.data();
  set.range = CUPTI_AutoRange;
  set.replayMode = CUPTI_KernelReplay;
  set.maxRangesPerPass = max_ranges;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 1;
  check(rp.set_config(&set), counter_step::set_config);

  prepare(); // the flush, finished: it is not profiled
  auto start = profiler_params<CUpti_RangeProfiler_Start_Params>(
      CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  start.pRangeProfilerObject = session.get();
  check(rp.start(&start), counter_step::start);
  work();
  auto stop =
      profiler_params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  stop.pRangeProfilerObject = session.get();
  check(rp.stop(&stop), counter_step::stop);
  synchronize();
  if (stop.isAllPassSubmitted == 0) {
    throw counters_unavailable(fmt::format(
        "kernel replay left passes unsubmitted after one call of the work (pass {} of {}); the "
        "work may not launch kernels CUPTI can replay",
        stop.passIndex + 1, out.passes));
  }
  auto decode = profiler_params<CUpti_RangeProfiler_DecodeData_Params>(
      CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  decode.pRangeProfilerObject = session.get();
  check(rp.decode(&decode), counter_step::decode);
  out.dropped_ranges = decode.numOfRangeDropped;

  auto info = profiler_params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  check(rp.counter_data_info(&info), counter_step::decode);
  std::vector<double> values;
  for (std::size_t r = 0; r < info.numTotalRanges; ++r) {
    auto range = profiler_params<CUpti_RangeProfiler_CounterData_GetRangeInfo_Params>(
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE);
    range.pCounterDataImage = data.data();
    range.counterDataImageSize = data.size();
    range.rangeIndex = r;
    range.rangeDelimiter = "/";
    check(rp.range_info(&range), counter_step::decode);
    profiled_range profiled;
    profiled.name = range.rangeName != nullptr ? range.rangeName : "";
    check(config.evaluate(data, r, metrics, values), counter_step::evaluate);
    for (std::size_t m = 0; m < metrics.size(); ++m) {
      profiled.metrics.emplace(out.metrics[m], values[m]);
    }
    out.ranges.push_back(std::move(profiled));
  }
}

} // namespace

std::vector<std::string> collected_metrics(const std::vector<std::string>& asked) {
  std::vector<std::string> names = asked.empty() ? default_metrics() : asked;
  if (std::find(names.begin(), names.end(), counter_metrics::range_duration) == names.end()) {
    names.emplace_back(counter_metrics::range_duration);
  }
  return names;
}

std::string device_chip(int ordinal) {
  static std::mutex mutex;
  static std::map<int, std::string> chips;
  const std::lock_guard lock(mutex);
  if (const auto found = chips.find(ordinal); found != chips.end()) {
    return found->second;
  }
  const range_profiler_library& rp = range_profiler();
  const auto ask = [&] {
    const profiler_scope profiler(rp);
    return chip_name(rp, ordinal);
  };
  try {
    try {
      return chips.emplace(ordinal, ask()).first->second;
    } catch (const step_failed& failed) {
      if (failed.code != CUPTI_ERROR_NOT_INITIALIZED ||
          failed.step != counter_step::profiler_initialise) {
        throw;
      }
    }
    // CUPTI was finalised by an earlier measurement (timing's detach), and the profiler does
    // not initialise it again; a subscription does. Left finalised, as timing leaves it.
    const initialising_subscription subscription(*std::get<const cupti_library*>(load_cupti()));
    return chips.emplace(ordinal, ask()).first->second;
  } catch (const step_failed& failed) {
    throw counters_unavailable(counter_failure_reason(failed.code, failed.step));
  }
}

metric_plan check_device_metrics(int ordinal, const std::vector<std::string>& asked) {
  // Every measurement with counters checks (each state of a run, and the run before them): the
  // Host API's answer for one chip and one set does not change, so it is asked once.
  const std::string chip = device_chip(ordinal);
  std::vector<std::string> names = collected_metrics(asked);
  static std::mutex mutex;
  static std::map<std::pair<std::string, std::vector<std::string>>, metric_plan> checked;
  const std::lock_guard lock(mutex);
  auto key = std::make_pair(chip, names);
  if (const auto found = checked.find(key); found != checked.end()) {
    return found->second;
  }
  metric_plan plan = check_metrics(profiler_host(), chip, names); // unknown names throw
  return checked.emplace(std::move(key), std::move(plan)).first->second;
}

counter_pass_outcome run_counter_pass(const counter_pass_request& request,
                                      const std::function<void()>& prepare,
                                      const std::function<void()>& work,
                                      const std::function<void()>& synchronize) {
  const auto began = std::chrono::steady_clock::now();
  counter_pass_outcome out;
  out.metrics = collected_metrics(request.metrics);
  try {
    collect(request, prepare, work, synchronize, out);
  } catch (const step_failed& failed) {
    out.unavailable = counter_failure_reason(failed.code, failed.step);
  } catch (const counters_unavailable& e) {
    out.unavailable = e.reason();
  } catch (const std::exception& e) {
    out.unavailable = fmt::format("the counter pass failed: {}", e.what());
  }
  if (out.unavailable) {
    out.ranges.clear();
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return out;
}

} // namespace kerntime::detail
