#include "cli/preparations.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "compare/pooled_result.hpp"
#include "kerntime/errors.hpp"
#include "result/message_words.hpp"

namespace kerntime::detail {

int preparations_of(const run_flags& flags, const protocol& p) {
  if (!flags.preparations) {
    return p.stop_at_ci ? 1 : p.trials;
  }
  const long long n = *flags.preparations;
  if (n < 1) {
    throw invalid_argument(fmt::format(
        "--preparations {} is not a count of preparations; give 1 or more, e.g. --preparations 5",
        n));
  }
  if (p.stop_at_ci && n > 1) {
    throw invalid_argument("--stop-at-ci adds trials to one preparation, so it takes no "
                           "--preparations above 1: drop one of them");
  }
  if (n > p.trials) {
    throw invalid_argument(fmt::format(
        "--preparations {} is more than the {} of the run: each preparation runs at least one "
        "trial; give --trials {} or fewer preparations",
        n, counted(p.trials, "trial"), n));
  }
  return static_cast<int>(n);
}

benchmark_run
run_in_preparations(const protocol& p, int preparations,
                    const std::function<benchmark_run(const protocol&)>& prepare_once) {
  const int count = std::min(preparations, p.trials);
  if (count <= 1 || p.stop_at_ci || p.counters || p.counters_only) {
    return prepare_once(p);
  }
  std::vector<measurement_result> results;
  results.reserve(static_cast<std::size_t>(count));
  benchmark_run first;
  for (int i = 0; i < count; ++i) {
    protocol each = p;
    each.trials = (p.trials / count) + (i < p.trials % count ? 1 : 0);
    benchmark_run run = prepare_once(each);
    if (run.status != run_status::ok || !run.result) {
      if (run.status == run_status::failed && i > 0) {
        run.message +=
            fmt::format(" (in preparation {} of {}; the ones before it measured)", i + 1, count);
      }
      return run;
    }
    results.push_back(std::move(*run.result));
    if (i == 0) {
      first = std::move(run);
    }
  }
  std::vector<const measurement_result*> pooled;
  pooled.reserve(results.size());
  for (const auto& r : results) {
    pooled.push_back(&r);
  }
  first.result = pool_preparations(pooled);
  return first;
}

} // namespace kerntime::detail
