#include "graph_work_count.hpp"

#include <vector>

#include "cuda_check.hpp"

namespace kerntime::testkit {

graph_work_count count_graph_work(cudaGraph_t graph) {
  std::size_t node_count = 0;
  KT_CUDA_CHECK(cudaGraphGetNodes(graph, nullptr, &node_count));
  std::vector<cudaGraphNode_t> nodes(node_count);
  KT_CUDA_CHECK(cudaGraphGetNodes(graph, nodes.data(), &node_count));
  graph_work_count count;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType type{};
    KT_CUDA_CHECK(cudaGraphNodeGetType(node, &type));
    switch (type) {
    case cudaGraphNodeTypeKernel:
      ++count.kernels;
      break;
    case cudaGraphNodeTypeMemset:
      ++count.memsets;
      break;
    case cudaGraphNodeTypeMemcpy:
      ++count.memcpys;
      break;
    case cudaGraphNodeTypeGraph: {
      cudaGraph_t child = nullptr;
      KT_CUDA_CHECK(cudaGraphChildGraphNodeGetGraph(node, &child));
      const graph_work_count inner = count_graph_work(child);
      count.kernels += inner.kernels;
      count.memsets += inner.memsets;
      count.memcpys += inner.memcpys;
      break;
    }
    default: // events, host nodes, allocations: no GPU record of their own
      break;
    }
  }
  return count;
}

graph_work_count count_captured_work(cudaStream_t stream,
                                     const std::function<void(cudaStream_t)>& call) {
  KT_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  call(stream);
  cudaGraph_t graph = nullptr;
  KT_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  graph_work_count count;
  try {
    count = count_graph_work(graph);
  } catch (...) {
    static_cast<void>(cudaGraphDestroy(graph));
    throw;
  }
  KT_CUDA_CHECK(cudaGraphDestroy(graph));
  return count;
}

} // namespace kerntime::testkit
