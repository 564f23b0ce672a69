#include "measure/timed_trials.hpp"

#include <fmt/format.h>

namespace kerntime::detail {

std::string blocking_timeout_warning(int timeouts) {
  return fmt::format(
      "in {} trial(s) the host took longer than {} ms to queue the iterations (the launch queue "
      "filled up), so the GPU started before all work was queued: times may include host launch "
      "gaps; use fewer repeats per trial",
      timeouts, blocking_timeout_ms);
}

} // namespace kerntime::detail
