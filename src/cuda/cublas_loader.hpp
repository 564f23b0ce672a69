#pragma once
// How kerntime::cublas() loads cuBLAS, callable with any path (the tests give bad ones).

#include <string>
#include <variant>

#include "kerntime/cublas.hpp"

namespace kerntime::detail {

// `path` (KERNTIME_CUBLAS_PATH), or where null or empty libcublas.so.<major> from the loader's
// path and then from /usr/local/cuda/lib64. The bound calls, or why not, with the fix.
[[nodiscard]] std::variant<cublas_library, std::string> load_cublas(const char* path);

} // namespace kerntime::detail
