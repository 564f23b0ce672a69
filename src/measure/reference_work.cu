#include "measure/reference_work.hpp"

#include <vector>

#include "kerntime/cuda.hpp"
#include "kerntime/measure.hpp"

namespace kerntime::detail {
namespace {

__global__ void bump_counter(int* counter) {
  if (threadIdx.x == 0) {
    *counter += 1;
  }
}

// The counters of one preparation, freed when it ends.
class counters {
public:
  explicit counters(int count) {
    for (int i = 0; i < count; ++i) {
      void* p = nullptr;
      check_cuda(cudaMalloc(&p, sizeof(int)), "allocating the reference's counter");
      pointers_.push_back(static_cast<int*>(p));
      check_cuda(cudaMemset(p, 0, sizeof(int)), "clearing the reference's counter");
    }
    check_cuda(cudaDeviceSynchronize(), "preparing the reference");
  }
  ~counters() {
    for (int* p : pointers_) {
      (void)cudaFree(p);
    }
  }
  counters(const counters&) = delete;
  counters& operator=(const counters&) = delete;
  counters(counters&&) = delete;
  counters& operator=(counters&&) = delete;

  [[nodiscard]] int* at(int i) const { return pointers_.at(static_cast<std::size_t>(i)); }

private:
  std::vector<int*> pointers_;
};

} // namespace

measurement_result measure_reference(const protocol& p) {
  const counters each(p.input_sets > 0 ? p.input_sets : 1);
  return measure(
      [&each](cudaStream_t stream, int input_set) {
        for (int k = 0; k < reference_launches; ++k) {
          bump_counter<<<1, 32, 0, stream>>>(each.at(input_set));
        }
        check_launch("the reference's kernels");
      },
      p);
}

} // namespace kerntime::detail
