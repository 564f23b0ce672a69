#pragma once
// One function per part of the Python module; module.cpp calls them in dependency order.

#include <pybind11/pybind11.h>

namespace kerntime::python {

void bind_errors(pybind11::module_& m);
void bind_result(pybind11::module_& m);
void bind_measure(pybind11::module_& m);
void bind_reports(pybind11::module_& m);
// Only where the module is built with kerntime_compare (Boost's headers were found).
void bind_compare(pybind11::module_& m);
void bind_example_result(pybind11::module_& m);
void bind_memset_probe(pybind11::module_& m);
void bind_devices(pybind11::module_& m);
void bind_speed_of_light(pybind11::module_& m);
void bind_session(pybind11::module_& m);

} // namespace kerntime::python
