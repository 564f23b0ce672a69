// For python/bench_overhead.py and the GPU tests: the same GPU operation (a memset of a buffer)
// measured once from a C++ work function and once from a Python callable, so the two paths can
// be compared: in wall time per iteration (host cost of the Python path) and in the measured
// latency (they must agree). Internal, not part of the public API.

#include <cuda_runtime_api.h>
#include <pybind11/pybind11.h>

#include <cstddef>

#include "bindings.hpp"
#include "kerntime/cuda.hpp"
#include "kerntime/measure.hpp"

namespace py = pybind11;

namespace kerntime::python {
namespace {

// Owns a device buffer; every launch is a memset of all of it on the legacy default stream.
class memset_probe {
public:
  explicit memset_probe(std::size_t bytes) : buffer_(bytes) {}

  void launch() const {
    check_cuda(cudaMemsetAsync(buffer_.data(), 0, buffer_.bytes(), cudaStreamLegacy),
               "probe memset");
  }

  // The C++ path: measure() with a C++ work function on the same stream bench() uses by default.
  [[nodiscard]] measurement_result measure_native(int warmup, int trials, int repeats) const {
    protocol p;
    p.warmup = warmup;
    p.trials = trials;
    p.repeats = repeats;
    p.input_sets = 1;
    return measure([this](cudaStream_t /*stream*/, int /*input_set*/) { launch(); }, p,
                   cudaStreamLegacy);
  }

private:
  device_buffer<std::byte> buffer_;
};

} // namespace

void bind_memset_probe(py::module_& m) {
  py::class_<memset_probe>(m, "_MemsetProbe")
      .def(py::init<std::size_t>(), py::arg("bytes"))
      .def("launch", &memset_probe::launch)
      .def("measure_native", &memset_probe::measure_native, py::arg("warmup"), py::arg("trials"),
           py::arg("repeats"));
}

} // namespace kerntime::python
