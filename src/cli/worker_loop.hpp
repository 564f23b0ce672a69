#pragma once
// The worker side of the supervised run: the same program, started by the supervisor with
// KERNTIME_WORKER_CHANNEL set, measures the states it is sent one at a time and streams each
// record back (supervise/worker_messages.hpp). A state that leaves the CUDA context unusable is
// recorded as cuda_fault and the worker exits, so the next state starts on a healthy context.

#include <string_view>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/state_plan.hpp"
#include "kerntime/protocol.hpp"

namespace kerntime::detail {

// The environment variable with the number the command gave this worker's device (--devices).
inline constexpr const char* worker_device_variable = "KERNTIME_WORKER_DEVICE";
// Set by kerntime ab: every state this worker prepares takes a pad of a drawn size first, so its
// buffers land somewhere new each time, and with the value vary_flush_too its flush buffer is
// made afresh after the pad as well (worker_loop.cpp).
inline constexpr const char* vary_placement_variable = "KERNTIME_VARY_PLACEMENT";
inline constexpr const char* vary_flush_too = "all";
// Set by kerntime ab --streams one (its default): every measurement of this worker, its states' and
// the reference's, runs on one stream the worker makes (measure/kept_resources.hpp,
// use_one_stream).
inline constexpr const char* one_stream_variable = "KERNTIME_ONE_STREAM";

// `channel`: the value of KERNTIME_WORKER_CHANNEL ("IN,OUT" descriptors). Returns the exit code.
// `hold_session`: CUPTI stays initialised for all the states it runs (kerntime/session.hpp).
// `preparations`: each state's trials split over that many fresh preparations (run_state).
[[nodiscard]] int serve_as_worker(std::string_view channel, const std::vector<planned_state>& plan,
                                  const protocol& p, const cli_environment& env,
                                  bool hold_session = true, int preparations = 1);

} // namespace kerntime::detail
