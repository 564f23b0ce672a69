// kerntime.measure from Python: the work is a Python callable called with one prepared input
// set per iteration, on the thread that called bench().

#include <cuda_runtime_api.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "kerntime/cuda.hpp"
#include "kerntime/errors.hpp"
#include "kerntime/measure.hpp"
#include "kerntime/protocol.hpp"
#include "measure/measure_with_sharing.hpp"
#include "roofline/peak_table.hpp"
#include "roofline/speed_of_light.hpp"

namespace py = pybind11;

namespace kerntime::python {
namespace {

// The arguments of one input set, unpacked once before timing so each iteration is one call.
struct call_arguments {
  py::tuple args;
  py::dict kwargs;
};

// Python hands streams over as integers, with 0 meaning the legacy default stream (what
// torch.cuda.current_stream().cuda_stream reports for it). measure() reads a null stream as
// "create your own", so 0 is passed on as cudaStreamLegacy, which names the same stream.
cudaStream_t to_stream(std::uintptr_t handle) {
  if (handle == 0) {
    return cudaStreamLegacy;
  }
  return reinterpret_cast<cudaStream_t>(handle); // NOLINT(performance-no-int-to-ptr)
}

// warmup: a count, or "auto" (then the minimum is the default count).
void read_warmup(const py::object& warmup, protocol_request& request) {
  if (py::isinstance<py::str>(warmup)) {
    if (warmup.cast<std::string>() != "auto") {
      throw invalid_argument("warmup takes a count of iterations or \"auto\" (got \"" +
                             warmup.cast<std::string>() + "\")");
    }
    request.warmup_auto = true;
    return;
  }
  if (!py::isinstance<py::int_>(warmup) || py::isinstance<py::bool_>(warmup)) {
    throw invalid_argument("warmup takes a count of iterations or \"auto\" (got a " +
                           std::string(py::str(py::type::of(warmup).attr("__name__"))) + ")");
  }
  request.warmup = warmup.cast<long long>();
}

measurement_result measure_python(const py::object& fn, const py::list& input_sets,
                                  const py::object& warmup, long long trials, long long repeats,
                                  bool flush_l2, const std::string& backend,
                                  const std::string& metric, std::uintptr_t stream, int device,
                                  bool wait_for_inputs, std::optional<double> stop_at_ci,
                                  bool cuda_graph, std::optional<long long> max_trials,
                                  std::optional<double> max_time, detail::cupti_holder cupti_holder,
                                  const py::object& cupti_recheck, bool counters,
                                  const std::vector<std::string>& metrics) {
  protocol_request request;
  read_warmup(warmup, request);
  request.trials = trials;
  request.stop_at_ci = stop_at_ci;
  request.max_trials = max_trials;
  request.max_time_s = max_time;
  request.repeats = repeats;
  request.flush_l2 = flush_l2;
  request.input_sets = static_cast<long long>(py::len(input_sets));
  request.backend = backend;
  request.metric = metric;
  request.cuda_graph = cuda_graph;
  request.counters = counters;
  request.metrics = metrics;
  const protocol p = parse_protocol(request);
  std::vector<call_arguments> calls;
  calls.reserve(py::len(input_sets));
  for (const auto& set : input_sets) {
    const auto pair = set.cast<py::tuple>();
    calls.push_back({pair[0].cast<py::tuple>(), pair[1].cast<py::dict>()});
  }
  if (device >= 0) {
    // The framework's current device; kerntime measures on the runtime's current device.
    check_cuda(cudaSetDevice(device), "selecting the device of the inputs");
  }
  if (wait_for_inputs) {
    // The input copies were enqueued by the framework, possibly on another stream than the
    // measured one: they must be complete before the first iteration reads them.
    check_cuda(cudaDeviceSynchronize(), "waiting for the input copies");
  }
  // The GIL stays held for the whole measurement: every iteration calls back into Python on
  // this thread, so releasing it around measure() would only mean re-acquiring it for each
  // call (time added to every iteration's host cost), and the engine's other threads (CUPTI's
  // buffer callbacks) never touch Python objects. A Python exception raised by fn travels
  // through the engine as pybind11::error_already_set and is restored, traceback included,
  // when it reaches Python again.
  const work_function work = [&fn, &calls](cudaStream_t /*stream*/, int input_set) {
    const auto& call = calls[static_cast<std::size_t>(input_set)];
    fn(*call.args, **call.kwargs);
  };
  // Who holds CUPTI, as kerntime.torch_profiler_state found it: only idle_torch_profiler grants
  // sharing, and the same check runs again once CUPTI is detached.
  detail::cupti_sharing sharing{cupti_holder, {}};
  if (!cupti_recheck.is_none()) {
    sharing.recheck = [&cupti_recheck] { return cupti_recheck().cast<detail::cupti_holder>(); };
  }
  measurement_result r = detail::measure(work, p, to_stream(stream), sharing);
  // The counters' DRAM bandwidth as a fraction of the table's peak, as `kerntime run` gives it.
  if (const auto peaks = detail::table_peaks(detail::peak_inputs_of(r))) {
    detail::add_counter_fractions(r.counters, *peaks);
  }
  return r;
}

} // namespace

void bind_measure(py::module_& m) {
  py::enum_<detail::cupti_holder>(m, "CuptiHolder",
                                  "Who holds CUPTI's subscription when kerntime's own is refused, "
                                  "as kerntime.torch_profiler_state finds it")
      .value("unknown", detail::cupti_holder::unknown)
      .value("idle_torch_profiler", detail::cupti_holder::idle_torch_profiler)
      .value("torch_profiler_recording", detail::cupti_holder::torch_profiler_recording)
      .value("torch_profiler_armed", detail::cupti_holder::torch_profiler_armed)
      .value("kineto_daemon", detail::cupti_holder::kineto_daemon)
      .value("injected_tool", detail::cupti_holder::injected_tool);
  m.def(
      "describe_cupti_holder",
      [](detail::cupti_holder holder) { return std::string(detail::describe(holder)); },
      py::arg("holder"), "The words kerntime's outputs give for a holder of CUPTI.");
  m.def("measure", &measure_python, py::arg("fn"), py::arg("input_sets"), py::kw_only(),
        py::arg("warmup"), py::arg("trials"), py::arg("repeats"), py::arg("flush_l2"),
        py::arg("backend"), py::arg("metric"), py::arg("stream"), py::arg("device") = -1,
        py::arg("wait_for_inputs") = false, py::arg("stop_at_ci") = py::none(),
        py::arg("cuda_graph") = false, py::arg("max_trials") = py::none(),
        py::arg("max_time") = py::none(), py::arg("cupti_holder") = detail::cupti_holder::unknown,
        py::arg("cupti_recheck") = py::none(), py::arg("counters") = false,
        py::arg("metrics") = std::vector<std::string>{},
        "Measures fn(*args, **kwargs) for each (args, kwargs) of input_sets, rotating over them. "
        "Internal: kerntime.bench() prepares the input sets and the stream.");
}

} // namespace kerntime::python
