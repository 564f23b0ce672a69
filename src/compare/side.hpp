#pragma once
// One side of a comparison of one state: the measurements of it that side holds (a run's, several
// runs', or an A/B run's preparations, one trial each), read the ways a comparison needs them.
// Shared by compare() and the A/B comparison (ab_comparison.hpp).

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kerntime/compare.hpp"
#include "kerntime/result.hpp"

namespace kerntime::detail {

// On-GPU SM clocks further apart than this make a time comparison a clock comparison too.
inline constexpr double clock_tolerance = 0.03;

struct side {
  std::vector<const measurement_result*> runs;
  std::vector<std::string> models;   // the GPU models its runs measured on, first seen first
  std::vector<std::string> problems; // runs of the state that failed or were skipped

  // Every iteration's value of the metric, run after run.
  [[nodiscard]] std::vector<double> iterations(headline_metric metric) const;
  // Each trial's median, run after run.
  [[nodiscard]] std::vector<double> trial_medians(headline_metric metric) const;
  // Each run's median over all its iterations.
  [[nodiscard]] std::vector<double> run_medians(headline_metric metric) const;
  // The median on-GPU SM clock over every trial that measured it.
  [[nodiscard]] std::optional<double> sm_clock_mhz() const;
  // The throttle rule's verdicts over every trial of this side, in the words of the warnings
  // ("2 of 5 trials below 90 % of max SM clock: 1680 MHz, 85 %"); empty when none was throttled.
  [[nodiscard]] std::string throttling() const;
  // The coarsest timer step of the side's runs (0: none known).
  [[nodiscard]] double timer_resolution_ns() const;
  [[nodiscard]] bool all_cupti() const;
  // The widest spread between preparations among its runs (measurement_result::
  // preparation_spread), with their preparations; empty when no run has one.
  [[nodiscard]] std::optional<std::pair<double, int>> preparation_spread() const;
};

// Every kernel of either side with its mean per iteration per side (averaged over the side's
// runs), largest first.
[[nodiscard]] std::vector<kernel_change> kernel_changes(const side& base, const side& changed);

// The verdict an interval of the ratio gives against the band: slower wholly above 1 + band,
// faster wholly below 1 / (1 + band), same wholly inside, else inconclusive.
[[nodiscard]] verdict verdict_of(double low, double high, double band);

} // namespace kerntime::detail
