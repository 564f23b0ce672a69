#pragma once
// A start and an end CUDA event per iteration, created before timing: the event timer's trials
// and the auto warm-up's batches both time iterations with them.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "kerntime/cuda.hpp"

namespace kerntime::detail {

class event_pairs {
public:
  explicit event_pairs(int count) : start_(static_cast<std::size_t>(count)), end_(start_.size()) {}

  [[nodiscard]] int size() const noexcept { return static_cast<int>(start_.size()); }
  cudaEvent_t start(int i) { return start_[static_cast<std::size_t>(i)].get(); }
  cudaEvent_t end(int i) { return end_[static_cast<std::size_t>(i)].get(); }

private:
  std::vector<cuda_event> start_;
  std::vector<cuda_event> end_;
};

} // namespace kerntime::detail
