#include "attribution/attribution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "attribution/tag_index.hpp"
#include "kerntime/errors.hpp"
#include "kerntime/statistics.hpp"
#include "result/message_words.hpp"

namespace kerntime::detail {
namespace {

constexpr std::size_t max_listed_problems = 5;

struct iteration_position {
  int trial = -1; // -1: ignored
  int index = 0;
};

// Resolves an iteration id to its trial and position, or says it is ignored or unknown.
class iteration_index {
public:
  explicit iteration_index(const iteration_layout& layout) : layout_(layout) {}

  [[nodiscard]] std::optional<iteration_position> find(std::uint64_t id) const {
    if (layout_.ignored.count(id) != 0) {
      return iteration_position{};
    }
    for (std::size_t t = 0; t < layout_.trial_first_ids.size(); ++t) {
      const std::uint64_t first = layout_.trial_first_ids[t];
      if (id >= first && id < first + static_cast<std::uint64_t>(layout_.repeats)) {
        return iteration_position{static_cast<int>(t), static_cast<int>(id - first)};
      }
    }
    return std::nullopt;
  }

private:
  const iteration_layout& layout_;
};

// One (name, kind) pair's calls and time within one iteration.
struct kernel_use {
  std::uint32_t name = 0;
  activity_kind kind = activity_kind::kernel;
  int calls = 0;
  std::uint64_t total_ns = 0;
};

struct iteration_accumulator {
  std::uint64_t first_start = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t last_end = 0;
  std::uint64_t busy_ns = 0;
  std::vector<kernel_use> uses; // few entries: a linear search beats a map

  void add(const gpu_activity& a) {
    first_start = std::min(first_start, a.start);
    last_end = std::max(last_end, a.end);
    const std::uint64_t duration = a.end - a.start;
    busy_ns += duration;
    for (auto& use : uses) {
      if (use.name == a.name && use.kind == a.kind) {
        ++use.calls;
        use.total_ns += duration;
        return;
      }
    }
    uses.push_back({a.name, a.kind, 1, duration});
  }

  [[nodiscard]] bool empty() const { return uses.empty(); }
};

std::string describe(const activity_log& log, const gpu_activity& a) {
  return fmt::format("{} '{}' (stream {}, correlation id {})", to_string(a.kind), log.names[a.name],
                     a.stream, a.correlation_id);
}

void check_timestamps(const activity_log& log) {
  for (const auto& a : log.gpu) {
    if (a.start == 0 && a.end == 0) {
      throw measurement_invalid(fmt::format(
          "CUPTI reported zero timestamps for {}; the GPU did not time this work (often after a "
          "CUDA fault), so no latency can be given",
          describe(log, a)));
    }
    if (a.end < a.start) {
      throw measurement_invalid(fmt::format("CUPTI reported an end before the start ({} < {}) for "
                                            "{}; the record is corrupt, so no latency can be given",
                                            a.end, a.start, describe(log, a)));
    }
  }
}

// The tags by correlation id; a call with two different kerntime tags makes the iteration it
// belongs to ambiguous.
tag_index index_tags(const activity_log& log) {
  tag_index tags(log);
  if (const auto correlation = tags.conflicting_correlation()) {
    throw measurement_invalid(
        fmt::format("API call {} carries two kerntime tags; the iteration it belongs to is "
                    "ambiguous (is another tool pushing kerntime's CUSTOM0-2 correlation ids?)",
                    *correlation));
  }
  return tags;
}

[[noreturn]] void throw_untagged(const activity_log& log,
                                 const std::vector<const gpu_activity*>& untagged) {
  std::unordered_map<std::uint32_t, std::uint32_t> thread_of;
  for (const auto& call : log.api_calls) {
    thread_of.emplace(call.correlation_id, call.thread_id);
  }
  std::string listed;
  for (std::size_t i = 0; i < untagged.size() && i < max_listed_problems; ++i) {
    const auto* a = untagged[i];
    const auto thread = thread_of.find(a->correlation_id);
    listed += fmt::format("\n  {}{}", describe(log, *a),
                          thread == thread_of.end()
                              ? std::string()
                              : fmt::format(", launched from thread {}", thread->second));
  }
  throw measurement_invalid(fmt::format(
      "{} GPU record(s) are untagged: work that no measured iteration launched (work launched "
      "from another thread, or left running from before the measurement) ran while timing. "
      "Launch all work from the calling thread inside the measured function and finish earlier "
      "work before measuring.{}",
      untagged.size(), listed));
}

// The multiset of (name, kind, calls) an iteration ran, for comparing iterations.
std::vector<std::tuple<std::uint32_t, activity_kind, int>>
signature(const iteration_accumulator& it) {
  std::vector<std::tuple<std::uint32_t, activity_kind, int>> s;
  s.reserve(it.uses.size());
  for (const auto& use : it.uses) {
    s.emplace_back(use.name, use.kind, use.calls);
  }
  std::sort(s.begin(), s.end());
  return s;
}

// Records that cannot be trusted make the whole measurement invalid: kerntime never under-reports.
void check_records_are_complete(const activity_log& log) {
  if (log.dropped_records > 0) {
    throw measurement_invalid(fmt::format(
        "CUPTI dropped {} activity record(s): some GPU work went unrecorded, so any latency would "
        "under-report. Use fewer repeats per trial, or report this as a kerntime bug",
        log.dropped_records));
  }
  check_timestamps(log);
}

// Every GPU record of the log, placed in the iteration that launched it.
struct sorted_records {
  std::vector<std::vector<iteration_accumulator>> iterations; // [trial][iteration]
  // Per measured iteration id: the flush's first start and last end.
  std::unordered_map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> flush_spans;
  std::vector<std::pair<const gpu_activity*, iteration_position>> first_trial;
};

// Throws when a record carries no kerntime tag or an iteration id the runner never launched.
sorted_records sort_into_iterations(const activity_log& log, const iteration_layout& layout) {
  const auto tags = index_tags(log);
  const iteration_index index(layout);
  sorted_records sorted;
  sorted.iterations.assign(
      layout.trial_first_ids.size(),
      std::vector<iteration_accumulator>(static_cast<std::size_t>(layout.repeats)));
  std::vector<const gpu_activity*> untagged;
  for (const auto& a : log.gpu) {
    const correlation_tag* tag = tags.find(a.correlation_id);
    if (tag == nullptr) {
      untagged.push_back(&a);
      continue;
    }
    if (tag->kind == tag_kind::internal) {
      continue;
    }
    const auto position = index.find(tag->id);
    if (tag->kind == tag_kind::flush) {
      if (position && position->trial >= 0) {
        auto [it, inserted] = sorted.flush_spans.try_emplace(
            tag->id, std::numeric_limits<std::uint64_t>::max(), std::uint64_t{0});
        it->second.first = std::min(it->second.first, a.start);
        it->second.second = std::max(it->second.second, a.end);
      }
      continue;
    }
    if (!position) {
      throw measurement_invalid(fmt::format(
          "{} is tagged with iteration id {}, which this measurement never launched (another "
          "tool may be pushing CUPTI CUSTOM0 correlation ids)",
          describe(log, a), tag->id));
    }
    if (position->trial < 0) {
      continue;
    }
    sorted
        .iterations[static_cast<std::size_t>(position->trial)]
                   [static_cast<std::size_t>(position->index)]
        .add(a);
    if (position->trial == 0) {
      sorted.first_trial.emplace_back(&a, *position);
    }
  }
  if (!untagged.empty()) {
    throw_untagged(log, untagged);
  }
  return sorted;
}

// Span and busy time of every iteration; an iteration without GPU work is an error, never a zero.
std::vector<trial_result> samples_of(const sorted_records& sorted) {
  std::vector<trial_result> trials(sorted.iterations.size());
  for (std::size_t t = 0; t < trials.size(); ++t) {
    for (std::size_t i = 0; i < sorted.iterations[t].size(); ++i) {
      const auto& it = sorted.iterations[t][i];
      if (it.empty()) {
        throw measurement_invalid(fmt::format(
            "iteration {} of trial {} produced no GPU record: the measured function launched no "
            "GPU work on this device, or launched it where CUPTI could not see it; a zero would "
            "be a lie, so no latency is given",
            i + 1, t + 1));
      }
      trials[t].iterations.push_back(
          {static_cast<double>(it.last_end - it.first_start), static_cast<double>(it.busy_ns)});
    }
  }
  return trials;
}

// The flush's GPU time per measured iteration (first start to last end); 0 without a flush.
double flush_median(const sorted_records& sorted) {
  if (sorted.flush_spans.empty()) {
    return 0;
  }
  std::vector<double> flush_ns;
  flush_ns.reserve(sorted.flush_spans.size());
  for (const auto& [id, span] : sorted.flush_spans) {
    flush_ns.push_back(static_cast<double>(span.second - span.first));
  }
  return median(std::move(flush_ns));
}

// The kernel set should be the same in every iteration; a warning says where it is not.
std::optional<std::string> compare_kernel_sets(const sorted_records& sorted, int repeats) {
  const auto reference = signature(sorted.iterations.front().front());
  std::size_t differing = 0;
  std::string first_difference;
  for (std::size_t t = 0; t < sorted.iterations.size(); ++t) {
    for (std::size_t i = 0; i < sorted.iterations[t].size(); ++i) {
      if (signature(sorted.iterations[t][i]) != reference && differing++ == 0) {
        first_difference = fmt::format("iteration {} of trial {}", i + 1, t + 1);
      }
    }
  }
  if (differing == 0) {
    return std::nullopt;
  }
  return fmt::format(
      "the set of GPU kernels differs between iterations ({} of {} {} from the first, starting "
      "with {}): the work is not the same every time, so calls per iteration in the breakdown "
      "are averages",
      differing, counted(sorted.iterations.size() * static_cast<std::size_t>(repeats), "iteration"),
      differing == 1 ? "differs" : "differ", first_difference);
}

// Every (name, kind) with its time per iteration (0 where absent), largest mean first.
std::vector<kernel_summary> kernel_breakdown(const activity_log& log,
                                             const sorted_records& sorted) {
  std::size_t iterations = 0;
  for (const auto& trial : sorted.iterations) {
    iterations += trial.size();
  }
  std::map<std::pair<std::uint32_t, activity_kind>, std::pair<std::vector<double>, long long>>
      per_kernel;
  std::size_t iteration_number = 0;
  double busy_total = 0;
  for (const auto& trial : sorted.iterations) {
    for (const auto& it : trial) {
      busy_total += static_cast<double>(it.busy_ns);
      for (const auto& use : it.uses) {
        auto& [times, calls] = per_kernel[{use.name, use.kind}];
        times.resize(iterations, 0.0);
        times[iteration_number] = static_cast<double>(use.total_ns);
        calls += use.calls;
      }
      ++iteration_number;
    }
  }
  const double mean_busy = busy_total / static_cast<double>(iterations);
  std::vector<kernel_summary> kernels;
  kernels.reserve(per_kernel.size());
  for (auto& [key, value] : per_kernel) {
    auto& [times, calls] = value;
    double sum = 0;
    for (const double v : times) {
      sum += v;
    }
    kernel_summary k;
    k.name = log.names[key.first];
    k.kind = key.second;
    k.calls_per_iteration = static_cast<double>(calls) / static_cast<double>(iterations);
    k.mean_ns = sum / static_cast<double>(iterations);
    k.median_ns = median(std::move(times));
    k.share = mean_busy > 0 ? k.mean_ns / mean_busy : 0.0;
    kernels.push_back(std::move(k));
  }
  std::stable_sort(
      kernels.begin(), kernels.end(),
      [](const kernel_summary& a, const kernel_summary& b) { return a.mean_ns > b.mean_ns; });
  return kernels;
}

// The first trial's records, relative to its first start, in start order.
std::vector<trace_record> first_trial_trace(const activity_log& log, const sorted_records& sorted) {
  std::vector<trace_record> trace;
  if (sorted.first_trial.empty()) {
    return trace;
  }
  std::uint64_t origin = std::numeric_limits<std::uint64_t>::max();
  for (const auto& [a, position] : sorted.first_trial) {
    origin = std::min(origin, a->start);
  }
  trace.reserve(sorted.first_trial.size());
  for (const auto& [a, position] : sorted.first_trial) {
    trace.push_back({log.names[a->name], a->kind, position.index, a->stream,
                     static_cast<double>(a->start - origin), static_cast<double>(a->end - origin)});
  }
  std::sort(trace.begin(), trace.end(),
            [](const trace_record& a, const trace_record& b) { return a.start_ns < b.start_ns; });
  return trace;
}

} // namespace

timed_trials attribute(const activity_log& log, const iteration_layout& layout) {
  check_records_are_complete(log);
  const sorted_records sorted = sort_into_iterations(log, layout);
  timed_trials out;
  out.trials = samples_of(sorted);
  out.flush_median_ns = flush_median(sorted);
  if (auto warning = compare_kernel_sets(sorted, layout.repeats)) {
    out.warnings.push_back(std::move(*warning));
  }
  out.kernels = kernel_breakdown(log, sorted);
  out.trace = first_trial_trace(log, sorted);
  return out;
}

} // namespace kerntime::detail
