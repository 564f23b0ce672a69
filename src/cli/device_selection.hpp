#pragma once
// Which GPUs a run uses (--devices) and how each worker is pinned to its own: the worker starts
// with CUDA_VISIBLE_DEVICES naming that one GPU, so no state can reach another state's GPU.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kerntime/report.hpp"

namespace kerntime::detail {

// "all" or a list such as "0,2,3", against the `count` devices this process sees. Throws
// kerntime::invalid_argument naming the value and the devices there are.
[[nodiscard]] std::vector<int> parse_devices(std::string_view text, int count);
// parse_devices' count where no device is visible: the numbers are checked, not their range.
inline constexpr int unknown_device_count = -1;

// The CUDA_VISIBLE_DEVICES of the worker for `ordinal`: that entry of the list the command was
// started with (`visible`, unset when nullopt), or the ordinal itself.
[[nodiscard]] std::string visible_devices_for(int ordinal,
                                              const std::optional<std::string>& visible);

// The device this process measures on (the current CUDA device), named as run_device records it;
// `ordinal` is the number the command gave it. nullopt when no device can be read.
[[nodiscard]] std::optional<run_device> read_run_device(int ordinal);

// The number of CUDA devices, without creating a context; 0 when none can be used.
[[nodiscard]] int count_devices();

} // namespace kerntime::detail
