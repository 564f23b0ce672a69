// The C++ error types become Python exception classes under one base, KerntimeError, so a caller
// can catch "no CUPTI here" apart from "your kernel faulted" apart from "numbers untrustworthy".

#include <pybind11/pybind11.h>

#include <exception>
#include <string>

#include "bindings.hpp"
#include "kerntime/errors.hpp"

namespace py = pybind11;

namespace kerntime::python {
namespace {

// The classes live as long as the interpreter; keeping them in leaked references avoids
// destroying Python objects after the interpreter has finalized.
struct exception_classes {
  PyObject* error = nullptr;
  PyObject* invalid_argument = nullptr;
  PyObject* cupti_unavailable = nullptr;
  PyObject* benchmark_failed = nullptr;
  PyObject* measurement_invalid = nullptr;
  PyObject* device_unavailable = nullptr;
  PyObject* not_capturable = nullptr;

  // The class of a kerntime error of this kind (KerntimeError for the kinds without their own).
  [[nodiscard]] PyObject* of(error_kind kind) const {
    switch (kind) {
    case error_kind::invalid_argument:
      return invalid_argument;
    case error_kind::cupti_unavailable:
      return cupti_unavailable;
    case error_kind::benchmark_failed:
      return benchmark_failed;
    case error_kind::measurement_invalid:
      return measurement_invalid;
    case error_kind::device_unavailable:
      return device_unavailable;
    case error_kind::not_capturable:
      return not_capturable;
    case error_kind::no_measurement:
    case error_kind::other:
    case error_kind::cuda_fault: // recorded by the command line's supervisor, never raised
    case error_kind::crashed:
    case error_kind::timed_out:
      break;
    }
    return error;
  }
};

exception_classes& classes() {
  static exception_classes instance;
  return instance;
}

// Raises `type(message)` with extra attributes, so Python code reads e.reason instead of
// parsing the message.
void raise_with_attributes(PyObject* type, const char* message, const py::dict& attributes) {
  py::object instance = py::reinterpret_borrow<py::object>(type)(message);
  for (auto item : attributes) {
    py::setattr(instance, item.first, item.second);
  }
  PyErr_SetObject(type, instance.ptr());
}

} // namespace

void bind_errors(py::module_& m) {
  auto& c = classes();
  // register_exception creates each class and its plain translator; the translator registered
  // below is consulted first and adds the attributes that carry the error's facts.
  c.error = py::register_exception<kerntime::error>(m, "KerntimeError").ptr();
  c.invalid_argument =
      py::register_exception<kerntime::invalid_argument>(m, "InvalidArgument", py::handle(c.error))
          .ptr();
  c.cupti_unavailable = py::register_exception<kerntime::cupti_unavailable>(m, "CuptiUnavailable",
                                                                            py::handle(c.error))
                            .ptr();
  c.benchmark_failed =
      py::register_exception<kerntime::benchmark_failed>(m, "BenchmarkFailed", py::handle(c.error))
          .ptr();
  c.measurement_invalid = py::register_exception<kerntime::measurement_invalid>(
                              m, "MeasurementInvalid", py::handle(c.error))
                              .ptr();
  c.device_unavailable = py::register_exception<kerntime::device_unavailable>(
                             m, "DeviceUnavailable", py::handle(c.error))
                             .ptr();
  c.not_capturable =
      py::register_exception<kerntime::work_not_capturable>(m, "NotCapturable", py::handle(c.error))
          .ptr();

  // pybind11 takes a plain function pointer with the exception_ptr by value.
  // NOLINTNEXTLINE(performance-unnecessary-value-param)
  py::register_exception_translator([](std::exception_ptr thrown) {
    if (!thrown) {
      return;
    }
    const auto& c = classes();
    try {
      std::rethrow_exception(thrown);
    } catch (const kerntime::error& e) {
      // Every kerntime error carries its kind, as the reports and the pytest plugin name it.
      py::dict attributes;
      attributes["kind"] = std::string(to_string(e.kind()));
      if (const auto* unavailable = dynamic_cast<const kerntime::cupti_unavailable*>(&e)) {
        attributes["reason"] = unavailable->reason();
      }
      if (const auto* failed = dynamic_cast<const kerntime::benchmark_failed*>(&e)) {
        attributes["cuda_error"] = failed->cuda_error();
        attributes["cuda_error_name"] = failed->cuda_error_name();
        attributes["where"] = failed->where();
      }
      if (const auto* refused = dynamic_cast<const kerntime::work_not_capturable*>(&e)) {
        attributes["capture_error"] = refused->capture_error();
        attributes["why"] = refused->why();
        attributes["fix"] = refused->fix();
      }
      raise_with_attributes(c.of(e.kind()), e.what(), attributes);
    }
    // Everything else (pybind11's error_already_set carrying the user's own Python exception)
    // falls through to the translators registered before.
  });

  // Internal, for the tests of this translation on machines where the engine cannot run.
  m.def(
      "_throw_error",
      [](const std::string& kind, const std::string& message) {
        if (kind == "invalid_argument") {
          throw kerntime::invalid_argument(message);
        }
        if (kind == "cupti_unavailable") {
          throw kerntime::cupti_unavailable(message);
        }
        if (kind == "benchmark_failed") {
          throw kerntime::benchmark_failed(700, "cudaErrorIllegalAddress", message);
        }
        if (kind == "measurement_invalid") {
          throw kerntime::measurement_invalid(message);
        }
        if (kind == "device_unavailable") {
          throw kerntime::device_unavailable(message);
        }
        if (kind == "not_capturable") {
          throw kerntime::work_not_capturable("cudaErrorStreamCaptureUnsupported", message,
                                              "the fix");
        }
        throw kerntime::error(message);
      },
      py::arg("kind"), py::arg("message"));
}

} // namespace kerntime::python
