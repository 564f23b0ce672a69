// The report writers of include/kerntime/report.hpp, so every format the Python module writes
// (Result.to_json(), the pytest plugin's session report) comes from the one C++ implementation.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "kerntime/errors.hpp"
#include "kerntime/report.hpp"

namespace py = pybind11;

namespace kerntime::python {
namespace {

std::string render_report(const std::string& format, const run_context& context,
                          const std::vector<benchmark_run>& runs) {
  std::ostringstream out;
  find_report_format(format).make_writer()->print(out, context, runs);
  return out.str();
}

void write_text_atomically(const std::filesystem::path& path, const std::string& text) {
  write_file_atomically(path, [&text](std::ostream& out) { out << text; });
}

// "" is no error; otherwise one of the schema's error kinds.
std::optional<error_kind> parse_kind(const std::string& text) {
  if (text.empty()) {
    return std::nullopt;
  }
  if (auto kind = parse_error_kind(text)) {
    return kind;
  }
  throw invalid_argument("unknown error kind \"" + text + "\"");
}

} // namespace

void bind_reports(py::module_& m) {
  py::class_<benchmark_run>(m, "BenchmarkRun")
      .def(py::init<>())
      .def_readwrite("benchmark", &benchmark_run::benchmark)
      .def_readwrite("axes", &benchmark_run::axes)
      .def_property(
          "status", [](const benchmark_run& r) { return std::string(to_string(r.status)); },
          [](benchmark_run& r, const std::string& text) {
            const auto status = parse_run_status(text);
            if (!status) {
              throw invalid_argument(
                  "run status must be \"ok\", \"failed\" or \"skipped\" (got \"" + text + "\")");
            }
            r.status = *status;
          })
      .def_readwrite("state_name", &benchmark_run::state_name)
      .def_property(
          "error_kind",
          [](const benchmark_run& r) {
            return r.error ? std::string(to_string(*r.error)) : std::string();
          },
          [](benchmark_run& r, const std::string& text) { r.error = parse_kind(text); })
      .def_readwrite("message", &benchmark_run::message)
      .def_readwrite("result", &benchmark_run::result)
      .def_readwrite("flops", &benchmark_run::flops)
      .def_readwrite("bytes", &benchmark_run::bytes)
      .def_property(
          "flops_precision",
          [](const benchmark_run& r) {
            return r.flops_precision ? std::optional<std::string>(to_string(*r.flops_precision))
                                     : std::nullopt;
          },
          [](benchmark_run& r, const std::optional<std::string>& text) {
            r.flops_precision = text ? parse_flop_precision(*text) : std::nullopt;
            if (text && !r.flops_precision) {
              throw invalid_argument("unknown precision \"" + *text + "\"; use one of " +
                                     flop_precision_names());
            }
          })
      .def_readwrite("speed_of_light", &benchmark_run::sol);
  m.def(
      "make_state_name",
      [](const std::string& benchmark,
         const std::vector<std::pair<std::string, std::string>>& axes) {
        return make_state_name(benchmark, axes);
      },
      py::arg("benchmark"), py::arg("axes"),
      "\"benchmark/axis=value/...\": the name a state is known by in every report.");
  py::class_<run_context>(m, "RunContext")
      .def(py::init<>())
      .def_readwrite("kerntime_version", &run_context::kerntime_version)
      .def_readwrite("command_line", &run_context::command_line)
      .def_readwrite("host_name", &run_context::host_name)
      .def_readwrite("date", &run_context::date)
      .def_readwrite("device", &run_context::device)
      .def_readwrite("telemetry", &run_context::telemetry);
  m.def("render_report", &render_report, py::arg("format"), py::arg("context"), py::arg("runs"),
        "The report of `runs` in `format` (markdown, json, gbench_json, junit, csv, trace, html).");
  m.def(
      "to_json", [](const measurement_result& r) { return to_json(r); }, py::arg("result"),
      "The kerntime JSON of one measurement (the schema's \"result\" object).");
  m.def("write_file_atomically", &write_text_atomically, py::arg("path"), py::arg("text"),
        "Writes through a temporary file in the same folder, then renames it into place.");
  m.attr("json_schema_version") = json_schema_version;
  m.attr("__version__") = KERNTIME_VERSION;
}

} // namespace kerntime::python
