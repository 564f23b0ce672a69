// How many CUDA devices this process sees, so the GPU tests can skip with a reason on machines
// without one instead of failing inside the engine.

#include <cuda_runtime_api.h>
#include <pybind11/pybind11.h>

#include "bindings.hpp"

namespace py = pybind11;

namespace kerntime::python {

void bind_devices(py::module_& m) {
  m.def(
      "cuda_device_count",
      [] {
        int count = 0;
        // No driver or no device is an answer here (0), not an error.
        if (cudaGetDeviceCount(&count) != cudaSuccess) {
          return 0;
        }
        return count;
      },
      "The number of CUDA devices visible to this process (0 without a driver or device).");
}

} // namespace kerntime::python
