#include "attribution/work_behaviour.hpp"

#include "attribution/tag_index.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <limits>
#include <numeric>
#include <optional>
#include <unordered_map>

#include "cupti/record_decoder.hpp"
#include "result/message_words.hpp"

namespace kerntime::detail {
namespace {

// The measured iteration ids of the layout, trial by trial.
std::vector<std::uint64_t> measured_ids(const iteration_layout& layout) {
  std::vector<std::uint64_t> ids;
  for (const std::uint64_t first : layout.trial_first_ids) {
    for (int r = 0; r < layout.repeats; ++r) {
      ids.push_back(first + static_cast<std::uint64_t>(r));
    }
  }
  return ids;
}

// Runtime names where the runtime's own calls were seen: the driver calls it made for them would
// name the same wait twice.
std::vector<std::string> preferred_names(const std::vector<std::string_view>& names) {
  const bool any_runtime = std::any_of(names.begin(), names.end(),
                                       [](std::string_view n) { return n.starts_with("cuda"); });
  std::vector<std::string> out;
  for (const auto name : names) {
    if (!any_runtime || name.starts_with("cuda")) {
      out.emplace_back(name);
    }
  }
  return out;
}

std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) {
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

} // namespace

std::map<std::uint64_t, std::vector<std::string_view>>
host_waits_by_iteration(const activity_log& log) {
  const tag_index tags(log);
  std::unordered_map<std::uint32_t, bool> stays_on_device;
  for (const auto& a : log.gpu) {
    if (a.kind == activity_kind::memcpy) {
      const std::string_view name = log.names[a.name];
      stays_on_device[a.correlation_id] =
          name == device_to_device_copy || name == peer_to_peer_copy;
    }
  }
  std::map<std::uint64_t, std::vector<std::string_view>> waits;
  for (const auto& call : log.api_calls) {
    if (call.wait.kind == host_wait_kind::none) {
      continue;
    }
    if (call.wait.kind == host_wait_kind::copy) {
      const auto copy = stays_on_device.find(call.correlation_id);
      if (copy != stays_on_device.end() && copy->second) {
        continue;
      }
    }
    const auto id = tags.iteration_of(call.correlation_id);
    if (!id) {
      continue;
    }
    auto& names = waits[*id];
    if (std::find(names.begin(), names.end(), call.wait.name) == names.end()) {
      names.push_back(call.wait.name);
    }
  }
  return waits;
}

std::vector<double> idle_before_iterations_ns(const activity_log& log,
                                              const iteration_layout& layout) {
  const tag_index tags(log);
  std::vector<std::size_t> order(log.gpu.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return log.gpu[a].start < log.gpu[b].start;
  });
  // The latest end of the API calls of each correlation id (a launch's runtime and driver calls),
  // sorted by correlation id: one allocation, not one per call.
  std::vector<std::pair<std::uint32_t, std::uint64_t>> call_end;
  call_end.reserve(log.api_calls.size());
  for (const api_call& call : log.api_calls) {
    if (call.end > 0) {
      call_end.emplace_back(call.correlation_id, call.end);
    }
  }
  std::sort(call_end.begin(), call_end.end());
  const auto latest_call_end = [&](std::uint32_t correlation) -> std::optional<std::uint64_t> {
    // The last entry of the correlation id holds its latest end (pairs sort by end second).
    const auto after =
        std::upper_bound(call_end.begin(), call_end.end(), correlation,
                         [](std::uint32_t c, const auto& entry) { return c < entry.first; });
    if (after == call_end.begin() || std::prev(after)->first != correlation) {
      return std::nullopt;
    }
    return std::prev(after)->second;
  };
  // Per measured iteration id: the idle time before its first record, once found. Iteration ids
  // are kerntime's own, numbered from 1 in launch order.
  const std::vector<std::uint64_t> measured = measured_ids(layout);
  const std::uint64_t largest_id =
      measured.empty() ? 0 : *std::max_element(measured.begin(), measured.end());
  std::vector<std::optional<double>> idle_of(largest_id + 1);
  std::optional<std::uint64_t> latest_end;
  for (const std::size_t i : order) {
    const gpu_activity& a = log.gpu[i];
    if (const auto id = tags.iteration_of(a.correlation_id);
        id && *id <= largest_id && !idle_of[*id]) {
      double gap =
          latest_end && a.start > *latest_end ? static_cast<double>(a.start - *latest_end) : 0.0;
      // The host was late only if the call that launched the record was still running when the
      // GPU went idle; a call that had returned before leaves the gap to the device (a CUDA
      // graph's launch latency: ~6 µs for 16 kernels on the H200).
      if (const auto call = latest_call_end(a.correlation_id);
          gap > 0 && call && *call <= *latest_end) {
        gap = 0;
      }
      idle_of[*id] = gap;
    }
    latest_end = std::max(latest_end.value_or(0), a.end);
  }
  std::vector<double> idle;
  idle.reserve(measured.size());
  for (const std::uint64_t id : measured) {
    idle.push_back(idle_of[id].value_or(0.0));
  }
  return idle;
}

std::vector<std::string> kernels_added_by_rotation(const activity_log& log,
                                                   std::uint64_t same_inputs_id,
                                                   std::uint64_t rotated_inputs_id) {
  const tag_index tags(log);
  std::vector<const gpu_activity*> rotated;
  std::unordered_map<std::uint32_t, int> extra_calls; // rotated calls minus same-input calls
  for (const auto& a : log.gpu) {
    const auto id = tags.iteration_of(a.correlation_id);
    if (id == rotated_inputs_id) {
      ++extra_calls[a.name];
      rotated.push_back(&a);
    } else if (id == same_inputs_id) {
      --extra_calls[a.name];
    }
  }
  std::stable_sort(
      rotated.begin(), rotated.end(),
      [](const gpu_activity* a, const gpu_activity* b) { return a->start < b->start; });
  std::vector<std::string> added;
  for (const auto* a : rotated) {
    if (auto& extra = extra_calls[a->name]; extra > 0) {
      added.push_back(log.names[a->name]);
      extra = 0; // each name once
    }
  }
  return added;
}

int launches_of_iteration(const activity_log& log, std::uint64_t id) {
  const tag_index tags(log);
  int launches = 0;
  for (const auto& a : log.gpu) {
    const correlation_tag* tag = tags.find(a.correlation_id);
    launches += tag != nullptr && tag->kind != tag_kind::internal && tag->id == id ? 1 : 0;
  }
  return launches;
}

work_behaviour judge_work(const activity_log& log, const iteration_layout& layout) {
  work_behaviour work;
  const auto waits = host_waits_by_iteration(log);
  std::vector<std::string_view> names;
  for (const std::uint64_t id : measured_ids(layout)) {
    const auto it = waits.find(id);
    if (it == waits.end()) {
      continue;
    }
    ++work.synchronizing_iterations;
    for (const auto name : it->second) {
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        names.push_back(name);
      }
    }
  }
  work.synchronizing_calls = preferred_names(names);
  const std::vector<double> idle = idle_before_iterations_ns(log, layout);
  work.judged_iterations = static_cast<int>(idle.size());
  for (const double gap : idle) {
    if (gap > launch_latency_ns) {
      ++work.host_gap_iterations;
      work.longest_host_gap_ns = std::max(work.longest_host_gap_ns, gap);
    }
  }
  return work;
}

std::vector<std::string> warnings_about(const work_behaviour& work, int measured_iterations) {
  std::vector<std::string> warnings;
  if (work.synchronizing_iterations > 0) {
    warnings.push_back(fmt::format(
        "the work synchronizes with the host: {} in {}; times include host round trips (the GPU "
        "time of each kernel in the breakdown is still exact)",
        listed(work.synchronizing_calls),
        work.synchronizing_iterations == measured_iterations
            ? std::string("every iteration")
            : fmt::format("{} of {}", work.synchronizing_iterations,
                          counted(measured_iterations, "iteration"))));
  } else if (work.judged_iterations > 0 &&
             static_cast<double>(work.host_gap_iterations) >
                 material_host_gap_share * static_cast<double>(work.judged_iterations)) {
    warnings.push_back(fmt::format(
        "the GPU waited for the host before {} of {} (idle up to {:.1f} µs before the work "
        "started): the host launches the work more slowly than the GPU runs it, so times may "
        "include host launch gaps",
        work.host_gap_iterations, counted(work.judged_iterations, "iteration"),
        work.longest_host_gap_ns / 1e3));
  }
  if (work.queue_chunk_iterations == 0 && work.judged_iterations == 0) {
    warnings.push_back(
        "the host stopped queueing while the GPU was held (the work waits for the GPU: a "
        "synchronize or a copy to the host), so the trials ran without the blocking kernel; event "
        "times include host round trips and launch gaps");
  }
  if (!work.rotation_added_kernels.empty()) {
    warnings.push_back(fmt::format(
        "rotating the inputs adds work: a call on rotated inputs ran {} beyond a call on the same "
        "inputs (a copy into static buffers, a re-capture or a re-tune); the times include it. "
        "Pass input_sets=1 (--input-sets 1) to time the call on the same inputs",
        listed(work.rotation_added_kernels)));
  }
  return warnings;
}

} // namespace kerntime::detail
