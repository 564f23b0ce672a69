#include "cuda_check.hpp"

#include <fmt/format.h>

#include "kerntime/errors.hpp"

namespace kerntime::testkit {

void check_library_status(int status, const char* library, const char* call) {
  if (status != 0) {
    throw benchmark_failed(status, fmt::format("{} status {}", library, status), call);
  }
}

int cuda_device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    static_cast<void>(cudaGetLastError()); // a missing driver is not an error for later calls
    return 0;
  }
  return count;
}

} // namespace kerntime::testkit
