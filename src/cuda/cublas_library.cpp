#include "cuda/cublas_loader.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <string>
#include <variant>

#include "kerntime/errors.hpp"

namespace kerntime {
namespace detail {
namespace {

template <class Function>
void bind(void* handle, const char* symbol, Function& out, std::string& missing) {
  out = reinterpret_cast<Function>(dlsym(handle, symbol));
  if (out == nullptr) {
    missing += missing.empty() ? symbol : fmt::format(", {}", symbol);
  }
}

} // namespace

std::variant<cublas_library, std::string> load_cublas(const char* overridden) {
  const bool explicit_path = overridden != nullptr && *overridden != '\0';
  const std::string path =
      explicit_path ? std::string(overridden) : fmt::format("libcublas.so.{}", CUBLAS_VER_MAJOR);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr && !explicit_path) { // where the CUDA toolkit puts it
    const std::string toolkit = "/usr/local/cuda/lib64/" + path;
    handle = dlopen(toolkit.c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  if (handle == nullptr) {
    const char* why = dlerror();
    return fmt::format("cannot load cuBLAS ({}: {}); install the CUDA toolkit's cuBLAS {} or set "
                       "KERNTIME_CUBLAS_PATH to its libcublas.so",
                       path, why != nullptr ? why : "not found", CUBLAS_VER_MAJOR);
  }
  cublas_library library;
  std::string missing;
  bind(handle, "cublasCreate_v2", library.create, missing);
  bind(handle, "cublasDestroy_v2", library.destroy, missing);
  bind(handle, "cublasSetStream_v2", library.set_stream, missing);
  bind(handle, "cublasSetWorkspace_v2", library.set_workspace, missing);
  bind(handle, "cublasGemmEx", library.gemm_ex, missing);
  bind(handle, "cublasGetStatusName", library.status_name, missing);
  bind(handle, "cublasGetStatusString", library.status_string, missing);
  if (!missing.empty()) {
    return fmt::format("the cuBLAS loaded from {} lacks {}; it is older than the cuBLAS {} "
                       "kerntime was built with (set KERNTIME_CUBLAS_PATH to a newer one)",
                       path, missing, CUBLAS_VER_MAJOR);
  }
  return library;
}

} // namespace detail

const cublas_library& cublas() {
  static const std::variant<cublas_library, std::string> loaded =
      detail::load_cublas(std::getenv("KERNTIME_CUBLAS_PATH"));
  if (const auto* why = std::get_if<std::string>(&loaded)) {
    throw error(*why);
  }
  return std::get<cublas_library>(loaded);
}

void check_cublas(cublasStatus_t status, const char* where) {
  if (status == CUBLAS_STATUS_SUCCESS) {
    return;
  }
  throw benchmark_failed(static_cast<int>(status), cublas().status_name(status), where);
}

} // namespace kerntime
