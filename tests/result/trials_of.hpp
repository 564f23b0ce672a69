#pragma once
// Trials of spans as a timer hands them on (busy is 90 % of each span): the input the summarise
// tests feed.

#include <vector>

#include "result/timed_trials.hpp"

namespace kerntime::detail {

inline timed_trials trials_of(const std::vector<std::vector<double>>& spans) {
  timed_trials timed;
  for (const auto& trial : spans) {
    trial_result t;
    for (const double span : trial) {
      t.iterations.push_back({span, 0.9 * span});
    }
    timed.trials.push_back(std::move(t));
  }
  return timed;
}

} // namespace kerntime::detail
