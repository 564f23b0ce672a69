#include <algorithm>
#include <map>
#include <ostream>

#include "kerntime/report.hpp"
#include "report/detail/result_json.hpp"

namespace kerntime {
namespace {

using json = nlohmann::ordered_json;

// Chrome's trace-event format, which Perfetto and chrome://tracing open: one process per state
// (pid = the state's index in the report), one thread per CUDA stream (tid = stream id), and a
// lane of iteration spans above the streams marking where each iteration began and ended.
// Timestamps are microseconds from the traced trial's first record.
constexpr double ns_per_us = 1e3;

json metadata(const char* name, int pid, std::int64_t tid, json args) {
  return {{"name", name}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

void add_state(json& events, int pid, const benchmark_run& run) {
  const auto& records = run.result->trace;
  std::uint32_t last_stream = 0;
  // Per iteration: its first start and last end, for the boundary markers.
  std::map<int, std::pair<double, double>> iterations;
  for (const auto& r : records) {
    last_stream = std::max(last_stream, r.stream);
    auto [it, inserted] = iterations.try_emplace(r.iteration, r.start_ns, r.end_ns);
    if (!inserted) {
      it->second.first = std::min(it->second.first, r.start_ns);
      it->second.second = std::max(it->second.second, r.end_ns);
    }
  }
  // One past the largest stream id, so the lane never shares a tid with a real stream.
  const std::int64_t iteration_lane = std::int64_t{last_stream} + 1;

  events.push_back(metadata("process_name", pid, 0, {{"name", run.state_name}}));
  events.push_back(metadata("process_sort_index", pid, 0, {{"sort_index", pid}}));
  events.push_back(metadata("thread_name", pid, iteration_lane, {{"name", "iterations"}}));
  events.push_back(metadata("thread_sort_index", pid, iteration_lane, {{"sort_index", -1}}));
  std::vector<std::uint32_t> streams;
  for (const auto& r : records) {
    if (std::find(streams.begin(), streams.end(), r.stream) == streams.end()) {
      streams.push_back(r.stream);
      events.push_back(
          metadata("thread_name", pid, r.stream, {{"name", "stream " + std::to_string(r.stream)}}));
    }
  }
  for (const auto& [iteration, bounds] : iterations) {
    events.push_back({{"name", "iteration " + std::to_string(iteration)},
                      {"cat", "iteration"},
                      {"ph", "X"},
                      {"ts", bounds.first / ns_per_us},
                      {"dur", (bounds.second - bounds.first) / ns_per_us},
                      {"pid", pid},
                      {"tid", iteration_lane},
                      {"args", {{"iteration", iteration}}}});
  }
  for (const auto& r : records) {
    events.push_back({{"name", r.name},
                      {"cat", std::string(to_string(r.kind))},
                      {"ph", "X"},
                      {"ts", r.start_ns / ns_per_us},
                      {"dur", (r.end_ns - r.start_ns) / ns_per_us},
                      {"pid", pid},
                      {"tid", r.stream},
                      {"args", {{"iteration", r.iteration}, {"stream", r.stream}}}});
  }
}

class trace_writer final : public report_writer {
  void do_print(std::ostream& out, const run_context& context,
                std::span<const benchmark_run> runs) override {
    json events = json::array();
    for (std::size_t i = 0; i < runs.size(); ++i) {
      // States without records (failed, skipped, timed with CUDA events) keep their index.
      if (runs[i].result && !runs[i].result->trace.empty()) {
        add_state(events, static_cast<int>(i), runs[i]);
      }
    }
    json document = {{"traceEvents", std::move(events)},
                     {"displayTimeUnit", "ns"},
                     {"otherData",
                      {{"kerntime_version", context.kerntime_version},
                       {"command_line", context.command_line},
                       {"date", context.date}}}};
    out << detail::dump(document, 1) << '\n';
  }
};

} // namespace

std::unique_ptr<report_writer> make_trace_writer() {
  return std::make_unique<trace_writer>();
}

} // namespace kerntime
