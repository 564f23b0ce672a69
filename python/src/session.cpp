// kerntime.session() from Python: the scope in which CUPTI stays initialised between measurements
// (kerntime/session.hpp). The Python class (kerntime/session.py) enters and leaves it.

#include "kerntime/session.hpp"

#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "cupti/cupti_scope.hpp"
#include "measure/kept_resources.hpp"

namespace py = pybind11;

namespace kerntime::python {

void bind_session(py::module_& m) {
  m.def(
      "_enter_session", [] { detail::enter_cupti_scope(); },
      "Opens a measurement session (kerntime.session() calls this).");
  // Leaving may free GPU memory and finalize CUPTI: without the GIL, as CUPTI may call back.
  m.def(
      "_leave_session", [](bool profiler_active) { detail::leave_cupti_scope(profiler_active); },
      py::arg("profiler_active") = false, py::call_guard<py::gil_scoped_release>(),
      "Closes the innermost measurement session (kerntime.session() calls this); with "
      "profiler_active, the outermost end leaves CUPTI to torch.profiler.");
  m.def(
      "_session_depth", [] { return session::depth(); },
      "How many measurement sessions are open in this process.");
  m.def(
      "_session_last_end", [] { return detail::name_of(detail::last_scope_end()); },
      "What the end of the last outermost session did with CUPTI.");
  m.def(
      "_session_kept_resources", [] { return detail::kept_resource_count(); },
      "How many flush buffers and blocking kernels the open session keeps.");
}

} // namespace kerntime::python
