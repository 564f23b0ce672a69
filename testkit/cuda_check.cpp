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

std::size_t l2_bytes() {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  int bytes = 0;
  check_cuda(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device),
             "cudaDeviceGetAttribute(cudaDevAttrL2CacheSize)");
  return static_cast<std::size_t>(bytes);
}

} // namespace kerntime::testkit
