#pragma once
// What a comparison of two sides holds, per state and in all: the data of kerntime/compare.hpp,
// apart from the functions that make it. The report writers that show a comparison (the HTML
// report) read it without depending on how it was made.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kerntime/protocol.hpp"
#include "kerntime/result.hpp"

namespace kerntime {

enum class verdict { slower, faster, same, inconclusive };
[[nodiscard]] std::string_view to_string(verdict v);
[[nodiscard]] std::optional<verdict> parse_verdict(std::string_view text);

// What the gate does with a change in time that the GPU clocks explain: the two sides' on-GPU
// SM clocks differ beyond 3 % and the ratio in cycles does not confirm the verdict in time (a
// power-capped run reads "slower" in time and "faster" in cycles). `warn` (the default): the
// verdict reads "slower (clock)", the gate passes and says what to run next; `fail`: it fails.
enum class clock_mismatch_rule { warn, fail };
[[nodiscard]] std::string_view to_string(clock_mismatch_rule r);
[[nodiscard]] std::optional<clock_mismatch_rule> parse_clock_mismatch_rule(std::string_view text);

struct compare_options {
  double threshold = 0.02; // a change within ±2 % is "same" (docs/compare.md says why)
  double alpha = 0.05;     // the interval's confidence is 1 - alpha
  std::optional<headline_metric> metric; // default: the base run's headline metric
  // Only states this accepts (all when empty). The command line builds it from --filter with
  // RE2, so compare itself matches no user pattern.
  std::function<bool(std::string_view state_name)> select;
  bool allow_different_devices = false;
  // No state measured on both sides means two unrelated files, refused. A caller comparing a part
  // of a run at a time (the pytest plugin, one test's results) turns this off: its comparison
  // may then hold no state, only states on one side or not compared.
  bool require_common_state = true;
  clock_mismatch_rule on_clock_mismatch = clock_mismatch_rule::warn;
};

// One kernel (name and kind) of a state, in the base and the new run. Absent on one side: it
// appeared or disappeared.
struct kernel_change {
  std::string name;
  activity_kind kind = activity_kind::kernel;
  std::optional<double> base_mean_ns;
  std::optional<double> new_mean_ns;
  double base_calls = 0; // per iteration
  double new_calls = 0;
};

struct state_comparison {
  std::string state_name;
  headline_metric metric = headline_metric::span;
  double base_ns = 0; // median of the metric over every iteration of the side's runs
  double new_ns = 0;
  double ratio = 1;     // new_ns / base_ns: the effect, from every iteration
  double ratio_low = 1; // the interval of the ratio, from the independent units below
  double ratio_high = 1;
  std::string unit; // "trials" (one run per side) or "runs" (several runs per side)
  int base_units = 0;
  int new_units = 0;
  double band = 0; // the "same" band used: the threshold, or the between-run floor if wider
  std::string band_reason;
  verdict outcome = verdict::inconclusive;
  std::optional<int> units_needed; // inconclusive: units per side (ab: in all) likely to settle it
  std::vector<kernel_change> kernels; // every kernel of either side; empty unless both used CUPTI
  std::optional<double> base_sm_clock_mhz; // median on-GPU clock over the side's trials
  std::optional<double> new_sm_clock_mhz;
  std::optional<double> cycles_ratio; // ratio × new clock / base clock, when both were measured
  // The clocks differ beyond 3 % and the interval in cycles does not give the same verdict as
  // the interval in time: the verdict may be the clock's, not the code's.
  bool clock_mismatch = false;
  // The timer's step (the coarser side's; 0: not known) and the change in its steps. The
  // interval is widened by a step on each side: a median of values that step by 32 ns is known
  // to a step at best.
  double timer_resolution_ns = 0;
  std::optional<double> change_in_steps;
  // kerntime ab: the SD of the log-ratios its units (process pairs) gave, as measured and after
  // kerntime's reference took out what each process pair's mode added (docs/ab.md, "The
  // reference"); and the slope the reference was taken at (the one the next round would use).
  // Absent where the comparison is not ab's or no reference ran.
  std::optional<double> unit_sd;
  std::optional<double> unit_sd_adjusted;
  std::optional<double> reference_beta;
  // True when this state fails the gate: slower, and not a clock mismatch the rule lets pass.
  bool regression = false;
  std::vector<std::string> notes; // clocks differ, throttled trials, another timer, ...
};

struct comparison {
  std::vector<state_comparison> states; // base order
  std::vector<std::string> only_in_base;
  std::vector<std::string> only_in_new;
  std::vector<std::string> not_compared; // "state: why" (failed or skipped on a side)
  std::string base_device;
  std::string new_device;
  compare_options options;
  // How the sides were measured: "compare" (finished runs, compare()) or "ab" (`kerntime ab`:
  // interleaved A B B A, A the base, B the new side, each interval a confidence sequence).
  std::string method = "compare";
};

} // namespace kerntime
