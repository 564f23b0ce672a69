#pragma once
// Whether this process can use a CUDA device at all; asked before anything is run.

#include <optional>
#include <string>

namespace kerntime::detail {

// nullopt when an NVIDIA driver can be loaded; otherwise the "no CUDA device found: " line of
// find_cuda_device_problem. It initialises nothing (libcuda's cuDriverGetVersion, not the CUDA
// runtime's, which runs cuInit first): a supervisor asks only this before it starts its workers,
// so CUDA's initialisation (~0.1 s) is not waited for before them.
[[nodiscard]] std::optional<std::string> find_cuda_driver_problem();

// nullopt when at least one CUDA device is usable; otherwise one line starting
// "no CUDA device found: " with CUDA's reason and what to check. Creates no CUDA context: a
// supervisor that only starts workers never needs one (each worker makes its own).
[[nodiscard]] std::optional<std::string> find_cuda_device_problem();

// In a process that measures (a worker, --no-isolation, calibrate): the current device's context,
// made now, so its ~0.1-0.2 s belongs to the process and not to the first measurement. nullopt
// when it was made; otherwise the line to print (a device in exclusive mode, a broken driver).
[[nodiscard]] std::optional<std::string> create_cuda_context();

} // namespace kerntime::detail
