#pragma once
// The iteration layout the attribution tests lay their records out for.

#include "attribution/attribution.hpp"

namespace kerntime::detail {

// One trial of `repeats` iterations with ids 2.., id 1 discarded (as the runner does).
inline iteration_layout one_trial(int repeats) {
  iteration_layout layout;
  layout.trial_first_ids = {2};
  layout.repeats = repeats;
  layout.ignored = {1};
  return layout;
}

} // namespace kerntime::detail
