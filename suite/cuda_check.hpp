#pragma once
// The suite checks every CUDA and cuBLAS call: a failure becomes kerntime::benchmark_failed naming
// the call, and the CLI records the state as failed and goes on.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <string>

#include "kerntime/errors.hpp"

namespace kerntime::suite {

inline void check_cuda(cudaError_t status, const char* where) {
  if (status != cudaSuccess) {
    throw benchmark_failed(static_cast<int>(status), cudaGetErrorName(status), where);
  }
}

// A kernel launch reports a bad configuration only through the runtime's last error.
inline void check_launch(const char* kernel) {
  check_cuda(cudaGetLastError(), kernel);
}

inline void check_cublas(cublasStatus_t status, const char* where) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw benchmark_failed(static_cast<int>(status), cublasGetStatusName(status), where);
  }
}

} // namespace kerntime::suite
