#include "cuda_check.hpp"

#include <fmt/format.h>

namespace kerntime::gpu_workloads {

void throw_cuda_error(cudaError_t error, const char* call, std::source_location where) {
  throw cuda_call_failed(fmt::format("{}:{}: {} failed: {} ({})", where.file_name(), where.line(),
                                     call, cudaGetErrorName(error), cudaGetErrorString(error)));
}

void throw_library_error(int status, const char* library, const char* call,
                         std::source_location where) {
  throw cuda_call_failed(fmt::format("{}:{}: {} failed: {} status {}", where.file_name(),
                                     where.line(), call, library, status));
}

} // namespace kerntime::gpu_workloads
