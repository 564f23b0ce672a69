#pragma once
// cuBLAS for kerntime programs, loaded on first use. A program that links libcublas loads it (and
// libcublasLt, 60+ MB) before main(): every command pays half a second and 200 MiB, `--help`
// included. Calling cuBLAS through kerntime::cublas() instead loads the library when the first
// state that needs it runs. The calls the bundled suite and `kerntime calibrate` make are here;
// the header's types and constants are cuBLAS's own.

#include <cublas_v2.h>

namespace kerntime {

struct cublas_library {
  decltype(&::cublasCreate_v2) create = nullptr;
  decltype(&::cublasDestroy_v2) destroy = nullptr;
  decltype(&::cublasSetStream_v2) set_stream = nullptr;
  decltype(&::cublasSetWorkspace_v2) set_workspace = nullptr;
  // cublasGemmEx with cublasComputeType_t (the C++ overload taking cudaDataType is inline).
  cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                            const void*, const void*, cudaDataType, int, const void*, cudaDataType,
                            int, const void*, void*, cudaDataType, int, cublasComputeType_t,
                            cublasGemmAlgo_t) = nullptr;
  decltype(&::cublasGetStatusName) status_name = nullptr;
  decltype(&::cublasGetStatusString) status_string = nullptr;
};

// The loaded library: libcublas.so.<the major version of the headers built against>, or the path
// in KERNTIME_CUBLAS_PATH. Loaded once, on the first call, by any thread. Throws kerntime::error
// naming the library, why it did not load and how to fix it (every later call throws the same).
[[nodiscard]] const cublas_library& cublas();

// Throws kerntime::benchmark_failed naming `where` and the status (CUBLAS_STATUS_…) unless
// `status` is CUBLAS_STATUS_SUCCESS: the state fails and the run goes on.
void check_cublas(cublasStatus_t status, const char* where);

} // namespace kerntime
