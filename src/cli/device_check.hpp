#pragma once
// Whether this process can use a CUDA device at all; asked before anything is run.

#include <optional>
#include <string>

namespace kerntime::detail {

// nullopt when at least one CUDA device is usable; otherwise one line starting
// "no CUDA device found: " with CUDA's reason and what to check.
[[nodiscard]] std::optional<std::string> find_cuda_device_problem();

} // namespace kerntime::detail
