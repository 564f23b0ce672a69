#pragma once
// The runtime and driver API calls that make the host wait for the GPU: stream, device, context
// and event synchronize, and the synchronous copies. Seen inside the measured work, they mean the
// work synchronizes with the host (docs/queue.md), which the engine must know: the host cannot
// release a queue it is waiting on.

#include <cupti_activity.h>

#include <cstdint>
#include <string_view>
#include <vector>

namespace kerntime::detail {

enum class host_wait_kind : std::uint8_t {
  none,
  synchronize, // always waits
  copy,        // a synchronous copy: waits unless it stays on the device (device to device)
};

struct host_wait_call {
  host_wait_kind kind = host_wait_kind::none;
  std::string_view name; // the API's name without CUPTI's version suffix; empty for none
};

// `api_kind` is CUPTI_ACTIVITY_KIND_RUNTIME or CUPTI_ACTIVITY_KIND_DRIVER, `cbid` the record's.
[[nodiscard]] host_wait_call host_wait_of(CUpti_ActivityKind api_kind, std::uint32_t cbid);

// Every call of `api_kind` that makes the host wait: the ones a watch on calls must see.
[[nodiscard]] std::vector<std::uint32_t> host_wait_cbids(CUpti_ActivityKind api_kind);

} // namespace kerntime::detail
