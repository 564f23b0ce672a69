#include "measure/graph_launch.hpp"

#include <fmt/format.h>

#include <exception>
#include <initializer_list>
#include <string>
#include <string_view>

#include "kerntime/cuda.hpp"
#include "kerntime/errors.hpp"
#include "measure/capture_failure.hpp"

namespace kerntime::detail {
namespace {

[[noreturn]] void throw_not_capturable(cudaError_t error, const capture_failure& failure) {
  throw work_not_capturable(error == cudaSuccess ? std::string() : cudaGetErrorName(error),
                            failure.why, failure.fix);
}

// The capture error among the errors a capture left (the call that broke it comes before the
// invalidation it caused) becomes work_not_capturable; `raised`, what the work threw on the way
// (a framework names the call it refused), is added to the reason.
void throw_if_capture_error(std::initializer_list<cudaError_t> errors,
                            std::string_view raised = {}) {
  for (const cudaError_t error : errors) {
    if (auto failure = explain_capture_error(error)) {
      if (!raised.empty()) {
        constexpr std::size_t longest = 240;
        const std::string_view line = raised.substr(0, raised.find('\n'));
        failure->why += fmt::format("; the work raised: {}{}", line.substr(0, longest),
                                    line.size() > longest ? "…" : "");
      }
      throw_not_capturable(error, *failure);
    }
  }
}

// Captures one call of the work on `stream` into a new graph. Thread-local mode: calls that are
// unsafe during capture (synchronizing, allocating) fail when this thread makes them, which is
// what graph mode must refuse; other threads of the process are not disturbed.
cudaGraph_t capture(const work_function& work, cudaStream_t stream, int input_set) {
  const std::string where = fmt::format("capturing the work of input set {}", input_set);
  (void)cudaGetLastError(); // an error the warm-up left was reported there
  if (const cudaError_t begun = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
      begun != cudaSuccess) {
    (void)cudaGetLastError();
    throw_not_capturable(begun, stream_not_capturable());
  }
  cudaGraph_t graph = nullptr;
  try {
    work(stream, input_set);
  } catch (const std::exception& e) {
    // The stream must leave capture whatever happened; a capture error behind the exception
    // (a framework that checks its calls raises on the first refused one) is the better message.
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
    if (graph != nullptr) {
      (void)cudaGraphDestroy(graph);
    }
    throw_if_capture_error({cudaGetLastError(), ended}, e.what());
    throw;
  } catch (...) {
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
    if (graph != nullptr) {
      (void)cudaGraphDestroy(graph);
    }
    throw_if_capture_error({cudaGetLastError(), ended});
    throw;
  }
  const cudaError_t last = cudaGetLastError();
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  (void)cudaGetLastError();
  if (last != cudaSuccess || ended != cudaSuccess) {
    if (graph != nullptr) {
      (void)cudaGraphDestroy(graph);
    }
    throw_if_capture_error({last, ended});
    check_cuda(last, where); // a fault of the work itself
    check_cuda(ended, where);
  }
  std::size_t nodes = 0;
  check_cuda(cudaGraphGetNodes(graph, nullptr, &nodes), where);
  if (nodes == 0) {
    (void)cudaGraphDestroy(graph);
    throw_not_capturable(cudaSuccess, empty_capture());
  }
  return graph;
}

} // namespace

captured_graphs::captured_graphs(const work_function& work, cudaStream_t stream, int input_sets) {
  owned_.graphs.reserve(static_cast<std::size_t>(input_sets));
  owned_.executables.reserve(static_cast<std::size_t>(input_sets));
  for (int set = 0; set < input_sets; ++set) {
    owned_.graphs.push_back(capture(work, stream, set));
    cudaGraphExec_t executable = nullptr;
    check_cuda(cudaGraphInstantiate(&executable, owned_.graphs.back(), 0),
               fmt::format("instantiating the graph of input set {}", set));
    owned_.executables.push_back(executable);
    // Uploaded now, so that the first launch does not carry the upload.
    check_cuda(cudaGraphUpload(executable, stream),
               fmt::format("uploading the graph of input set {}", set));
  }
}

captured_graphs::owned_graphs::~owned_graphs() {
  // After a device fault these fail and there is nothing to do.
  for (const cudaGraphExec_t executable : executables) {
    (void)cudaGraphExecDestroy(executable);
  }
  for (const cudaGraph_t graph : graphs) {
    (void)cudaGraphDestroy(graph);
  }
}

void captured_graphs::launch(cudaStream_t stream, int input_set) const {
  check_cuda(cudaGraphLaunch(owned_.executables.at(static_cast<std::size_t>(input_set)), stream),
             "launching the captured graph");
}

work_function captured_graphs::as_work() const {
  return [this](cudaStream_t stream, int input_set) { launch(stream, input_set); };
}

} // namespace kerntime::detail
