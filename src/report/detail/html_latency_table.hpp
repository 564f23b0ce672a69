#pragma once
// A benchmark's latency table in the HTML report: a row per state with its statistics, the
// throughput, the speed of light, energy, the timer and, given a comparison, the ratio to the
// baseline. In a nightly run's summary page a state's trials are drawn small beside its name.

#include <ostream>
#include <span>

#include "kerntime/report.hpp"
#include "report/detail/benchmark_groups.hpp"
#include "report/detail/html_comparison.hpp"

namespace kerntime::detail {

void print_latency_table(std::ostream& out, const benchmark_group& group,
                         std::span<const benchmark_run> runs, const compared_states& compared,
                         bool summary);

} // namespace kerntime::detail
