// kerntime._kerntime: the C++ engine as seen from Python. The pure-Python package kerntime/
// wraps it (bench(), Result, the pytest plugin); nothing here re-implements the engine.

#include "bindings.hpp"

PYBIND11_MODULE(_kerntime, m) {
  m.doc() = "kerntime's C++ engine; use the kerntime package rather than this module directly";
  kerntime::python::bind_errors(m);
  kerntime::python::bind_result(m);
  kerntime::python::bind_measure(m);
  kerntime::python::bind_session(m);
  kerntime::python::bind_speed_of_light(m);
  kerntime::python::bind_reports(m);
#ifdef KERNTIME_HAS_COMPARE
  kerntime::python::bind_compare(m);
#else
  m.attr("compare_unavailable") =
      "this build of kerntime has no compare: Boost's headers (Boost.Math, 1.71 or newer) were "
      "not found when it was built; install them (apt install libboost-dev) and rebuild kerntime";
#endif
#ifndef KERNTIME_READS_RESULTS
  m.attr("results_unreadable") =
      "this build of kerntime reads no result files: simdjson or zlib was not found when it was "
      "built; install them (apt install libsimdjson-dev zlib1g-dev) and rebuild kerntime";
#endif
  kerntime::python::bind_example_result(m);
  kerntime::python::bind_memset_probe(m);
  kerntime::python::bind_devices(m);
}
