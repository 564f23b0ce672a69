#pragma once
// The GPU activity of one measurement, decoded from CUPTI records into plain values. Attribution
// works on this, so it can be tested with records built by hand.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cupti/host_wait_calls.hpp"
#include "kerntime/result.hpp"

namespace kerntime::detail {

// The external-correlation kinds kerntime pushes around the work it launches.
enum class tag_kind : std::uint8_t {
  iteration, // CUSTOM0: the benchmarked call; id = iteration number
  flush,     // CUSTOM1: the L2 flush before an iteration; id = iteration number
  internal,  // CUSTOM2: kerntime's own work (clock checks); never counted
};

// A kernel, memset or memcpy as the GPU ran it.
struct gpu_activity {
  activity_kind kind = activity_kind::kernel;
  std::uint32_t name = 0;  // index into activity_log::names
  std::uint64_t start = 0; // ns, GPU timestamp
  std::uint64_t end = 0;
  std::uint32_t correlation_id = 0; // of the API call that launched it
  std::uint32_t stream = 0;
};

// CUPTI's link from an API call to the external id that was on top of the stack when it was made.
struct correlation_tag {
  tag_kind kind = tag_kind::iteration;
  std::uint64_t id = 0;
  std::uint32_t correlation_id = 0;
};

// The thread of each runtime/driver API call: names the culprit of untagged work. `wait` says
// whether the call makes the host wait for the GPU (a synchronize, a synchronous copy).
struct api_call {
  std::uint32_t correlation_id = 0;
  std::uint32_t thread_id = 0;
  host_wait_call wait;
  // When the call ran on the host, on the GPU records' clock (ns); 0 where CUPTI gave none.
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  // Which call: CUPTI_ACTIVITY_KIND_RUNTIME or _DRIVER, and its CUPTI_*_TRACE_CBID_* number.
  CUpti_ActivityKind api_kind = CUPTI_ACTIVITY_KIND_INVALID;
  std::uint32_t cbid = 0;
};

struct activity_log {
  std::vector<gpu_activity> gpu;
  std::vector<correlation_tag> tags;
  std::vector<api_call> api_calls;
  std::vector<std::string> names;
  std::size_t dropped_records = 0; // as CUPTI reported them; any makes the measurement invalid
};

} // namespace kerntime::detail
