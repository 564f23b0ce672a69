#pragma once
// The suite checks every CUDA and cuBLAS call: a failure becomes kerntime::benchmark_failed naming
// the call, and the CLI records the state as failed and goes on. CUDA's checks, the owned
// buffers, streams and events are kerntime's own (kerntime/cuda.hpp); cuBLAS's is here.

#include <cublas_v2.h>

#include "kerntime/cuda.hpp"
#include "kerntime/errors.hpp"

namespace kerntime::suite {

inline void check_cublas(cublasStatus_t status, const char* where) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw benchmark_failed(static_cast<int>(status), cublasGetStatusName(status), where);
  }
}

} // namespace kerntime::suite
