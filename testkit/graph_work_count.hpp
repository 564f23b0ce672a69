#pragma once
// How many GPU operations one call of a piece of work launches, counted independently of
// kerntime: capture the call into a CUDA graph and count its kernel, memset and memcpy nodes.
// A library (cuBLAS, CUB) launches the same operations when captured as when run.

#include <cuda_runtime_api.h>

#include <functional>

namespace kerntime::testkit {

struct graph_work_count {
  int kernels = 0;
  int memsets = 0;
  int memcpys = 0;
  [[nodiscard]] int total() const { return kernels + memsets + memcpys; }
};

// Counts the operations of a graph, descending into child graphs.
[[nodiscard]] graph_work_count count_graph_work(cudaGraph_t graph);

// Captures `call(stream)` on `stream` (which must not be the legacy default stream) and counts it.
[[nodiscard]] graph_work_count count_captured_work(cudaStream_t stream,
                                                   const std::function<void(cudaStream_t)>& call);

} // namespace kerntime::testkit
