#include "measure/cuda_check.hpp"

#include <fmt/format.h>

#include <string>

#include "kerntime/errors.hpp"

namespace kerntime::detail {

void check_cuda(cudaError_t result, std::string_view where) {
  if (result != cudaSuccess) {
    throw benchmark_failed(
        static_cast<int>(result),
        fmt::format("{} ({})", cudaGetErrorName(result), cudaGetErrorString(result)),
        std::string(where));
  }
}

void check_device(std::string_view where) {
  check_cuda(cudaDeviceSynchronize(), where);
  check_cuda(cudaGetLastError(), where);
}

} // namespace kerntime::detail
