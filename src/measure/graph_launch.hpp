#pragma once
// Graph mode: the work captured once per input set into a CUDA graph, so that each iteration
// launches one graph instead of calling the work. Captured after the warm-up (JIT compilation,
// autotuning and lazy allocation happen in eager calls first) and before the timer is attached;
// the flush, the timer's tags and its events stay outside the graphs, around each launch.

#include <cuda_runtime_api.h>

#include <vector>

#include "kerntime/measure.hpp"

namespace kerntime::detail {

class captured_graphs {
public:
  // Captures `work(stream, set)` for every set in [0, input_sets), instantiates and uploads each
  // graph. Throws work_not_capturable (capture_failure.hpp says why), benchmark_failed for a CUDA
  // error of the work itself, or what the work threw.
  captured_graphs(const work_function& work, cudaStream_t stream, int input_sets);

  // Launches input set `input_set`'s graph on `stream`: one iteration's work.
  void launch(cudaStream_t stream, int input_set) const;

  // The graphs as a work function, for the timers: each call launches one graph.
  [[nodiscard]] work_function as_work() const;

private:
  // Destroys what it holds, also when the constructor throws halfway through the input sets.
  struct owned_graphs {
    std::vector<cudaGraph_t> graphs;
    std::vector<cudaGraphExec_t> executables;
    owned_graphs() = default;
    ~owned_graphs();
    owned_graphs(const owned_graphs&) = delete;
    owned_graphs& operator=(const owned_graphs&) = delete;
  };
  owned_graphs owned_;
};

} // namespace kerntime::detail
