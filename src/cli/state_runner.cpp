#include "cli/state_runner.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <optional>
#include <ostream>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "cli/preparations.hpp"
#include "kerntime/benchmark.hpp"
#include "kerntime/session.hpp"
#include "measure/reference_work.hpp"

namespace kerntime::detail {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

void record_failure(benchmark_run& run, error_kind kind, std::string message) {
  run.status = run_status::failed;
  run.error = kind;
  run.message = std::move(message);
  run.result.reset();
}

// Runs `body` (a benchmark, or the reference) and records its errors in `run`; never throws.
template <class Body> void record_errors(benchmark_run& run, Body&& body) {
  try {
    std::forward<Body>(body)();
  } catch (const std::exception& e) {
    record_failure(run, error_kind_of(e), e.what());
  } catch (...) {
    record_failure(run, error_kind::other,
                   "the benchmark threw an exception that is not a std::exception");
  }
  // An error such as a bad launch configuration stays pending in the runtime until read; read it
  // here so it is charged to this state, not to the next one. A sticky error (illegal address)
  // stays: context_unusable() tells.
  if (run.status == run_status::failed) {
    (void)cudaGetLastError();
  }
}

// Runs one state and records what happened; never throws for the benchmark's own errors.
benchmark_run run_one(const planned_state& planned, const protocol& p) {
  benchmark_run run;
  run.benchmark = planned.registered->name();
  run.axes = planned.axis_texts;
  run.state_name = planned.name;
  protocol launched = p;
  if (planned.launch) {
    launched.launch = *planned.launch; // one half of --cuda-graph=both
  }
  state s(planned.name, planned.registered->name(), planned.values, launched);
  record_errors(run, [&] {
    planned.registered->function()(s);
    run.flops = s.flops();
    run.bytes = s.bytes();
    run.flops_precision = s.flops_precision();
    if (s.is_skipped()) {
      run.status = run_status::skipped;
      run.message = *s.skip_reason();
    } else if (s.result()) {
      run.status = run_status::ok;
      run.result = s.result();
    } else {
      record_failure(run, error_kind::no_measurement,
                     "the benchmark returned without calling state.exec() or state.skip()");
    }
  });
  return run;
}

} // namespace

benchmark_run run_state(const std::vector<planned_state>& plan, std::size_t plan_index,
                        const protocol& p, int preparations) {
  const auto start = clock_type::now();
  const planned_state& planned = plan.at(plan_index);
  benchmark_run run = run_in_preparations(
      p, preparations, [&planned](const protocol& each) { return run_one(planned, each); });
  run.wall_seconds = seconds_since(start);
  run.plan_index = plan_index;
  return run;
}

benchmark_run run_reference(const protocol& p) {
  const auto start = clock_type::now();
  benchmark_run run;
  run.benchmark = reference_benchmark;
  run.state_name = reference_state_name;
  run.axes = {{"kernels", std::to_string(reference_launches)}};
  // Launched kernel by kernel whatever the run's --cuda-graph: the gaps between launches are
  // what it tracks (a graph has none of their modes, docs/ab.md).
  protocol launched = p;
  launched.launch = launch_mode::stream;
  record_errors(run, [&] {
    run.result = measure_reference(launched);
    run.status = run_status::ok;
  });
  run.wall_seconds = seconds_since(start);
  return run;
}

bool context_unusable() {
  (void)cudaGetLastError();
  if (cudaDeviceSynchronize() == cudaSuccess) {
    return false;
  }
  (void)cudaGetLastError();
  return cudaDeviceSynchronize() != cudaSuccess;
}

std::vector<benchmark_run> run_states(const std::vector<planned_state>& plan,
                                      const std::vector<std::size_t>& plan_indices,
                                      const protocol& p, const std::optional<run_device>& device,
                                      std::ostream* progress, bool hold_session, int preparations) {
  std::vector<benchmark_run> runs;
  runs.reserve(plan_indices.size());
  // CUPTI stays initialised and the flush buffer kept from state to state (kerntime/session.hpp).
  std::optional<session> scope;
  if (hold_session) {
    scope.emplace();
  }
  const auto start = clock_type::now();
  for (std::size_t i = 0; i < plan_indices.size(); ++i) {
    const auto state_start = clock_type::now();
    if (progress) {
      *progress << fmt::format("[{}/{}] {} ...", i + 1, plan_indices.size(),
                               plan.at(plan_indices[i]).name)
                << std::flush;
    }
    runs.push_back(run_state(plan, plan_indices[i], p, preparations));
    runs.back().device = device;
    if (progress) {
      *progress << fmt::format(" {} in {:.2f} s, {:.2f} s elapsed\n", to_string(runs.back().status),
                               seconds_since(state_start), seconds_since(start))
                << std::flush;
    }
  }
  return runs;
}

} // namespace kerntime::detail
