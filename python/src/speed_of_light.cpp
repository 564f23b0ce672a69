// Speed of light from Python: the roofline result type, the precision names, and the command
// line's own add_speed_of_light applied to one measurement, so kerntime.bench(flops=, bytes=,
// dtype=) and `kerntime run` give the same percentages from the same peaks.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <span>
#include <string>

#include "bindings.hpp"
#include "kerntime/errors.hpp"
#include "kerntime/report.hpp"
#include "kerntime/roofline.hpp"
#include "report/runs_speed_of_light.hpp"
#include "roofline/speed_of_light.hpp"

namespace py = pybind11;

namespace kerntime::python {
namespace {

std::optional<flop_precision> precision_of(const std::optional<std::string>& name) {
  if (!name) {
    return std::nullopt;
  }
  if (auto precision = parse_flop_precision(*name)) {
    return precision;
  }
  throw invalid_argument("unknown precision \"" + *name + "\"; use one of " +
                         flop_precision_names());
}

std::optional<std::string> name_of(const std::optional<flop_precision>& precision) {
  return precision ? std::optional<std::string>(to_string(*precision)) : std::nullopt;
}

// The table's peaks for the result's GPU (no --peaks or --calibration file from Python).
std::optional<speed_of_light> speed_of_light_of(const measurement_result& result,
                                                std::optional<double> flops,
                                                std::optional<double> bytes,
                                                const std::optional<std::string>& precision) {
  benchmark_run run;
  run.result = result;
  run.flops = flops;
  run.bytes = bytes;
  run.flops_precision = precision_of(precision);
  // Without peaks (a GPU the table has no row for) the result has none: docs/python.md.
  (void)detail::add_speed_of_light(std::span<benchmark_run>(&run, 1), {});
  return run.sol;
}

} // namespace

void bind_speed_of_light(py::module_& m) {
  py::class_<achievable_speed_of_light>(m, "AchievableSpeedOfLight")
      .def_readonly("flops_per_s", &achievable_speed_of_light::flops_per_s)
      .def_readonly("bytes_per_s", &achievable_speed_of_light::bytes_per_s)
      .def_readonly("compute_pct", &achievable_speed_of_light::compute_pct)
      .def_readonly("memory_pct", &achievable_speed_of_light::memory_pct)
      .def_readonly("source", &achievable_speed_of_light::source);
  py::class_<speed_of_light>(m, "SpeedOfLight")
      .def_property_readonly("precision",
                             [](const speed_of_light& s) { return name_of(s.precision); })
      .def_readonly("peak_flops_per_s", &speed_of_light::peak_flops_per_s)
      .def_readonly("peak_bytes_per_s", &speed_of_light::peak_bytes_per_s)
      .def_readonly("compute_pct", &speed_of_light::compute_pct)
      .def_readonly("memory_pct", &speed_of_light::memory_pct)
      .def_property_readonly(
          "bound", [](const speed_of_light& s) { return std::string(to_string(s.bound)); })
      .def_readonly("roofline_ns", &speed_of_light::roofline_ns)
      .def_readonly("peak_source", &speed_of_light::peak_source)
      .def_readonly("notes", &speed_of_light::notes)
      .def_readonly("achievable", &speed_of_light::achievable);
  m.def("flop_precision_names", &flop_precision_names,
        "Every precision name add_flops and bench(dtype=) accept, comma-separated.");
  m.def(
      "parse_flop_precision",
      [](const std::string& name) { return name_of(parse_flop_precision(name)); }, py::arg("name"),
      "The precision's name, or None where it is not one.");
  m.def("speed_of_light", &speed_of_light_of, py::arg("result"), py::arg("flops") = py::none(),
        py::arg("bytes") = py::none(), py::arg("precision") = py::none(),
        "The run's speed of light from the peak table of its GPU, as `kerntime run` computes "
        "it; None where neither bound can be computed.");
}

} // namespace kerntime::python
