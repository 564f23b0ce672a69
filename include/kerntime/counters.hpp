#pragma once
// Hardware counters beside the time: what the counter pass measured for one state, per kernel of
// the breakdown and for the whole iteration (docs/counters.md). The pass runs after every timing
// trial, profiling one flushed iteration with CUPTI's range profiler (auto range, kernel replay);
// it never changes the timing result, and when it cannot run it says why.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kerntime/roofline.hpp"

namespace kerntime {

// CUPTI's names of the metrics kerntime collects by default (GH100 and GB100 both know them) and
// derives from; the one place they are spelled.
namespace counter_metrics {
inline constexpr const char* dram_read = "dram__bytes_read.sum";
inline constexpr const char* dram_write = "dram__bytes_write.sum";
inline constexpr const char* dram_percent = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char* l2_hit_rate = "lts__t_sector_hit_rate.pct";
// The portable tensor-pipe name: GH100's sm__pipe_tensor_op_hmma_* is unknown on GB100.
inline constexpr const char* tensor_pipe =
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active";
// Each range's own GPU time: weights averaged metrics over a kernel's launches.
inline constexpr const char* range_duration = "gpu__time_duration.sum";
} // namespace counter_metrics

// not_requested: counters were not asked for. measured: the pass ran and its ranges were
// attributed. unavailable: asked for but not collected (`reason` says why and what would fix it).
enum class counters_status { not_requested, measured, unavailable };
[[nodiscard]] std::string_view to_string(counters_status s);
[[nodiscard]] std::optional<counters_status> parse_counters_status(std::string_view text);

// What kerntime derives from the counters and its own timed duration. Each is set only when the
// metrics it needs were collected (DRAM bytes: dram__bytes_read.sum and dram__bytes_write.sum).
struct counters_derived {
  std::optional<double> dram_bytes;              // read + write, one iteration
  std::optional<double> dram_bytes_per_second;   // dram_bytes over kerntime's median time
  std::optional<double> dram_fraction_of_peak;   // that over the device's peak bandwidth
  std::optional<double> dram_percent_of_peak;    // the counter's own DRAM throughput %
  std::optional<double> compute_percent_of_peak; // the larger of tensor-pipe and SM throughput %
  // Whichever of the two percents is larger; none when neither reaches 5 % (an idle GPU has no
  // bound: 0.3 % DRAM against 0 % compute is not "memory-bound").
  std::optional<roofline_bound> bound;
  // Values outside their physical range, each with why: a percentage above 100 % or below 0, a
  // negative count. Shown as counter artefacts, never as facts (ratios whose parts come from
  // separate replay passes can exceed their range: L2 hit rates of 102-201 % on radix-sort
  // kernels of the H200).
  std::vector<std::string> implausible;

  bool operator==(const counters_derived&) const = default;
};

// One kernel of the breakdown (all launches of one name in an iteration) and its counters.
struct kernel_counters_result {
  std::string name;                      // as the breakdown names it
  int launches = 0;                      // per iteration
  std::map<std::string, double> metrics; // one iteration's value per metric (sums add launches)
  counters_derived derived;

  bool operator==(const kernel_counters_result&) const = default;
};

struct counters_summary {
  counters_status status = counters_status::not_requested;
  std::string reason;               // unavailable: why, and the fix
  std::string chip;                 // as CUPTI names it: "GH100"
  std::vector<std::string> metrics; // collected, in the order asked (+ gpu__time_duration.sum)
  int passes = 0;                   // replay passes each kernel ran
  double seconds = 0;               // host wall time of the counter pass, set-up included
  std::vector<kernel_counters_result> kernels; // breakdown order; kernels only
  std::map<std::string, double> metrics_total; // every range of the iteration together
  counters_derived derived;                    // the iteration as a whole
  // Where the profiled ranges and the timed iteration's kernels disagree, in words (empty when
  // they match one to one).
  std::vector<std::string> mismatches;

  bool operator==(const counters_summary&) const = default;
};

} // namespace kerntime
