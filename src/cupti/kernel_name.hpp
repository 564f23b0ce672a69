#pragma once
// The name people read for a kernel: CUPTI reports C++ kernels by their mangled names (both in
// activity records and as range-profiler range names), so both the breakdown and the counter
// pass demangle them here, in one place.

#include <string>

namespace kerntime::detail {

// The demangled name of a mangled C++ name ("_Z..."); any other name (an extern "C" kernel, a
// name that does not demangle) unchanged.
[[nodiscard]] std::string readable_kernel_name(const char* name);

} // namespace kerntime::detail
