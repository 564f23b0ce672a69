// A CUDA graph of `kernels` dependent elementwise kernels, captured and instantiated before
// timing (one graph per input set, since a graph holds its pointers) and launched with one
// cudaGraphLaunch per iteration: every node is measured, none of the capture.

#include <vector>

#include "cuda_check.hpp"
#include "elementwise.cuh"
#include "fill.cuh"
#include "kerntime/benchmark.hpp"

namespace kerntime::suite {
namespace {

class graph_exec {
public:
  explicit graph_exec(cudaGraph_t graph) {
    check_cuda(cudaGraphInstantiate(&exec_, graph, 0), "cudaGraphInstantiate");
  }
  ~graph_exec() {
    if (exec_ != nullptr) {
      (void)cudaGraphExecDestroy(exec_);
    }
  }
  graph_exec(graph_exec&& other) noexcept : exec_(other.exec_) { other.exec_ = nullptr; }
  graph_exec(const graph_exec&) = delete;
  graph_exec& operator=(const graph_exec&) = delete;
  [[nodiscard]] cudaGraphExec_t get() const noexcept { return exec_; }

private:
  cudaGraphExec_t exec_ = nullptr;
};

graph_exec capture_chain(float* values, std::size_t count, std::int64_t kernels,
                         cudaStream_t capture) {
  constexpr unsigned threads = 256;
  check_cuda(cudaStreamBeginCapture(capture, cudaStreamCaptureModeThreadLocal),
             "cudaStreamBeginCapture");
  for (std::int64_t k = 0; k < kernels; ++k) {
    scale_kernel<<<blocks_for(count, threads), threads, 0, capture>>>(values, count, 1.0f);
    if (const auto status = cudaGetLastError(); status != cudaSuccess) {
      cudaGraph_t abandoned = nullptr;
      (void)cudaStreamEndCapture(capture, &abandoned);
      (void)cudaGraphDestroy(abandoned);
      check_cuda(status, "scale_kernel (graph capture)");
    }
  }
  cudaGraph_t graph = nullptr;
  check_cuda(cudaStreamEndCapture(capture, &graph), "cudaStreamEndCapture");
  try {
    graph_exec exec(graph);
    (void)cudaGraphDestroy(graph);
    check_cuda(cudaGraphUpload(exec.get(), capture), "cudaGraphUpload");
    return exec;
  } catch (...) {
    (void)cudaGraphDestroy(graph);
    throw;
  }
}

void graph_launch(state& s) {
  const auto kernels = s.get_int("kernels");
  if (kernels < 1 || kernels > 4096) {
    throw invalid_argument("graph_launch: axis kernels must be within 1..4096");
  }
  constexpr std::size_t count = std::size_t{1} << 20;
  auto values = make_input_sets<float>(s.input_sets(), count);
  cuda_stream capture;
  std::vector<graph_exec> graphs;
  for (int i = 0; i < s.input_sets(); ++i) {
    fill(values[i].data(), count, static_cast<std::uint64_t>(i), unit_float{});
    graphs.push_back(capture_chain(values[i].data(), count, kernels, capture.get()));
  }
  check_cuda(cudaStreamSynchronize(capture.get()), "graph upload");

  s.add_flops(static_cast<double>(kernels) * static_cast<double>(count));
  s.add_bytes(static_cast<double>(kernels) * 2.0 * static_cast<double>(count * sizeof(float)));
  // Measured on the stream it was captured and uploaded on, made anew with each preparation:
  // a graph launch does not follow the launch-gap mode kerntime ab's reference reads, so it
  // stays off the one stream ab's workers otherwise share (docs/ab.md).
  s.exec(
      [&](cudaStream_t stream, int input_set) {
        check_cuda(cudaGraphLaunch(graphs[input_set].get(), stream), "cudaGraphLaunch");
      },
      capture.get());
}

} // namespace

KERNTIME_BENCHMARK(graph_launch).add_int_axis("kernels", {4, 16});

} // namespace kerntime::suite
