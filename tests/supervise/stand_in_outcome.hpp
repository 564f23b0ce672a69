#pragma once
// What a run against the stand-in workers gave, as the supervisor's and the A/B run's tests read
// it: a record per state, the run's summary, and the events it printed.

#include <sstream>
#include <string>
#include <vector>

#include "supervise/supervisor.hpp"

namespace kerntime::detail {

template <typename Record> struct stand_in_outcome {
  std::vector<Record> states; // one per state, in plan order
  supervision_summary summary;
  std::string events;
};

// `run(settings, &summary)`, with the events it prints captured.
template <typename Record, typename Settings, typename Run>
stand_in_outcome<Record> run_capturing_events(Settings settings, Run run) {
  std::ostringstream events;
  settings.events = &events;
  stand_in_outcome<Record> o;
  o.states = run(settings, &o.summary);
  o.events = events.str();
  return o;
}

} // namespace kerntime::detail
