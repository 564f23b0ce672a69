#pragma once
// The GEMMs `kerntime calibrate` times, one per precision. kerntime_cli holds only this interface,
// so a program linking kerntime_main needs no cuBLAS; the `kerntime` command links
// kerntime_cublas_gemms (cublas_gemms.cpp), which registers cuBLAS GEMMs here when it loads.

#include <cuda_runtime_api.h>

#include <memory>
#include <stdexcept>
#include <vector>

#include "kerntime/roofline.hpp"

namespace kerntime::detail {

// This GPU or library cannot run the GEMM (the message says why).
class gemm_unavailable : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class calibration_gemm {
public:
  virtual ~calibration_gemm() = default;
  [[nodiscard]] virtual flop_precision precision() const = 0;
  // Allocates and fills the operands of a size × size × size GEMM. Throws gemm_unavailable where
  // this GPU or library cannot run it.
  virtual void prepare(long long size) = 0;
  // Enqueues one GEMM on `stream`; no allocation, no synchronisation.
  virtual void run(cudaStream_t stream) = 0;
};

using calibration_gemm_factory = std::vector<std::unique_ptr<calibration_gemm>> (*)();

// Set once by the library that provides the GEMMs; null where the program has none.
void set_calibration_gemm_factory(calibration_gemm_factory factory);
[[nodiscard]] calibration_gemm_factory get_calibration_gemm_factory();

} // namespace kerntime::detail
