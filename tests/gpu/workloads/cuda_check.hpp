#pragma once
// Every CUDA and cuBLAS call in the tests and benchmarks is checked: a failed setup call throws
// with the call's text and the error's name, so a broken test says why instead of timing garbage.

#include <cuda_runtime_api.h>

#include <source_location>
#include <stdexcept>
#include <string>

namespace kerntime::gpu_workloads {

class cuda_call_failed : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

void throw_cuda_error(cudaError_t error, const char* call, std::source_location where);
void throw_library_error(int status, const char* library, const char* call,
                         std::source_location where);

} // namespace kerntime::gpu_workloads

#define KT_CUDA_CHECK(call)                                                                        \
  do {                                                                                             \
    if (const cudaError_t kt_error_ = (call); kt_error_ != cudaSuccess) {                          \
      ::kerntime::gpu_workloads::throw_cuda_error(kt_error_, #call,                                \
                                                  std::source_location::current());                \
    }                                                                                              \
  } while (false)

// For libraries whose status 0 means success (cuBLAS, CUPTI).
#define KT_LIBRARY_CHECK(library, call)                                                            \
  do {                                                                                             \
    if (const int kt_status_ = static_cast<int>(call); kt_status_ != 0) {                          \
      ::kerntime::gpu_workloads::throw_library_error(kt_status_, library, #call,                   \
                                                     std::source_location::current());             \
    }                                                                                              \
  } while (false)
