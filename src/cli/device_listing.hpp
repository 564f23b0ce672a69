#pragma once
// `kerntime info`: the devices, the CUDA versions and whether CUPTI can be used here.

#include <iosfwd>
#include <string>

namespace kerntime::detail {

// "13.0" from 13000, as cudaDriverGetVersion reports versions.
[[nodiscard]] std::string cuda_version_text(int version);

// Prints every visible device; returns the exit code (0, or 3 when no device is usable).
[[nodiscard]] int print_device_listing(std::ostream& out, std::ostream& err);

} // namespace kerntime::detail
