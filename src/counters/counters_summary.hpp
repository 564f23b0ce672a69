#pragma once
// The counters block of a result, from the counter pass and the timed iteration it is attributed
// to: per kernel of the breakdown its metric values, and what kerntime derives from them and its
// own timed durations (DRAM bytes, bytes per second, the bound). Pure: tests feed it ranges.

#include <vector>

#include "counters/counter_pass.hpp"
#include "kerntime/counters.hpp"
#include "kerntime/result.hpp"

namespace kerntime::detail {

// From the metrics of one kernel (or the iteration) and its timed duration: DRAM bytes read +
// written, those bytes over the duration, the counter's DRAM %, the compute % (the largest of
// tensor-pipe and SM throughput % among the metrics), the bound (whichever % is larger, when
// one reaches bound_floor_percent) and the values outside their physical range.
// dram_fraction_of_peak needs the device's peak and is set by the speed-of-light stage.
[[nodiscard]] counters_derived derive_counters(const std::map<std::string, double>& metrics,
                                               double duration_ns);

// Below this, neither DRAM nor compute is busy enough to name a bound.
inline constexpr double bound_floor_percent = 5;

// Each metric value outside its physical range, with why (counters_derived::implausible).
[[nodiscard]] std::vector<std::string>
implausible_counters(const std::map<std::string, double>& metrics);

// `iteration`: the records of one timed iteration (trace records of iteration 0), `breakdown`
// the kernels of the result (their median times), `latency_ns` the headline latency.
[[nodiscard]] counters_summary summarise_counters(const counter_pass_outcome& pass,
                                                  const std::vector<trace_record>& iteration,
                                                  const std::vector<kernel_summary>& breakdown,
                                                  double latency_ns);

// The derived values again, with timed durations from another measurement of the same work (the
// command line's timing phase, when the counters came from a counters_only run): each kernel's
// from the breakdown's median of that name, the iteration's from `latency_ns`.
void rederive_counters(counters_summary& counters, const std::vector<kernel_summary>& breakdown,
                       double latency_ns);

// The counters block of a measurement that did not run the pass, with the reason.
[[nodiscard]] counters_summary counters_unavailable_because(std::string reason);

} // namespace kerntime::detail
