#include "cli/state_runner.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <ostream>

#include <fmt/format.h>

#include "kerntime/benchmark.hpp"

namespace kerntime::detail {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

std::vector<std::pair<std::string, std::string>> axis_texts(const planned_state& s) {
  std::vector<std::pair<std::string, std::string>> texts;
  for (const auto& entry : s.values) {
    const std::string& name = entry.first; // a plain reference: lambdas may capture it
    const auto& value = entry.second;
    std::visit(
        [&](const auto& v) {
          if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>) {
            texts.emplace_back(name, v);
          } else {
            texts.emplace_back(name, fmt::format("{}", v));
          }
        },
        value);
  }
  return texts;
}

void record_failure(benchmark_run& run, std::string kind, std::string message) {
  run.status = run_status::failed;
  run.error_kind = std::move(kind);
  run.message = std::move(message);
  run.result.reset();
}

// Runs one state and records what happened; never throws for the benchmark's own errors.
benchmark_run run_one(const planned_state& planned, const protocol& p) {
  benchmark_run run;
  run.benchmark = planned.registered->name();
  run.axes = axis_texts(planned);
  state s(planned.registered->name(), planned.values, p);
  try {
    planned.registered->function()(s);
    run.flops = s.flops();
    run.bytes = s.bytes();
    if (s.is_skipped()) {
      run.status = run_status::skipped;
      run.message = *s.skip_reason();
    } else if (s.result()) {
      run.status = run_status::ok;
      run.result = s.result();
    } else {
      record_failure(run, "no_measurement",
                     "the benchmark returned without calling state.exec() or state.skip()");
    }
  } catch (const cupti_unavailable& e) {
    record_failure(run, "cupti_unavailable", e.what());
  } catch (const benchmark_failed& e) {
    record_failure(run, "benchmark_failed", e.what());
  } catch (const measurement_invalid& e) {
    record_failure(run, "measurement_invalid", e.what());
  } catch (const invalid_argument& e) {
    record_failure(run, "invalid_argument", e.what());
  } catch (const std::exception& e) {
    record_failure(run, "error", e.what());
  } catch (...) {
    record_failure(run, "error", "the benchmark threw an exception that is not a std::exception");
  }
  // An error such as a bad launch configuration stays pending in the runtime until read; read it
  // here so it is charged to this state, not to the next one. A sticky error (illegal address)
  // stays, and every later state fails with its own message.
  if (run.status == run_status::failed) {
    (void)cudaGetLastError();
  }
  return run;
}

} // namespace

std::vector<benchmark_run> run_states(const std::vector<planned_state>& states, const protocol& p,
                                      std::ostream* progress) {
  std::vector<benchmark_run> runs;
  runs.reserve(states.size());
  const auto start = clock_type::now();
  for (std::size_t i = 0; i < states.size(); ++i) {
    const auto state_start = clock_type::now();
    if (progress) {
      *progress << fmt::format("[{}/{}] {} ...", i + 1, states.size(), states[i].name)
                << std::flush;
    }
    runs.push_back(run_one(states[i], p));
    if (progress) {
      *progress << fmt::format(" {} in {:.2f} s, {:.1f} s elapsed\n", to_string(runs.back().status),
                               seconds_since(state_start), seconds_since(start))
                << std::flush;
    }
  }
  return runs;
}

} // namespace kerntime::detail
