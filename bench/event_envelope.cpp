// Where does a CUDA-event interval's overhead come from in the cold-L2 protocol? A 50 us spin
// kernel (its duration does not depend on clocks or caches) timed between two events, after:
//   memset   — the L2 flush as kerntime does it (cudaMemsetAsync of 2 x L2);
//   settled  — the same flush followed by an empty kernel, outside the events;
//   kernel   — a flush written by a kernel instead of cudaMemsetAsync;
//   none     — no flush at all.
// Prints the median event interval minus 50 us for each.

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include "cuda_check.hpp"
#include "event_timing.hpp"
#include "fill_kernel.hpp"
#include "kerntime/statistics.hpp"

#include "result_line.hpp"
#include "spin_kernel.hpp"

namespace {

using namespace kerntime;
constexpr auto spin = std::chrono::microseconds(50);
constexpr int iterations = 100;

template <typename Flush> double overhead_us(cudaStream_t stream, Flush flush) {
  std::vector<cudaEvent_t> start(iterations);
  std::vector<cudaEvent_t> end(iterations);
  for (int i = 0; i < iterations; ++i) {
    KT_CUDA_CHECK(cudaEventCreate(&start[i]));
    KT_CUDA_CHECK(cudaEventCreate(&end[i]));
  }
  for (int i = 0; i < iterations; ++i) {
    flush(stream);
    KT_CUDA_CHECK(cudaEventRecord(start[i], stream));
    testkit::launch_spin(stream, spin);
    KT_CUDA_CHECK(cudaEventRecord(end[i], stream));
  }
  KT_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> us;
  for (int i = 0; i < iterations; ++i) {
    float ms = 0;
    KT_CUDA_CHECK(cudaEventElapsedTime(&ms, start[i], end[i]));
    us.push_back(ms * 1e3 - 50.0);
    KT_CUDA_CHECK(cudaEventDestroy(start[i]));
    KT_CUDA_CHECK(cudaEventDestroy(end[i]));
  }
  return kerntime::median(us);
}

} // namespace

int main() {
  try {
    cuda_stream stream;
    const std::size_t bytes = 2 * testkit::l2_bytes();
    void* buffer = nullptr;
    KT_CUDA_CHECK(cudaMalloc(&buffer, bytes));
    auto memset_flush = [&](cudaStream_t s) {
      KT_CUDA_CHECK(cudaMemsetAsync(buffer, 1, bytes, s));
    };
    auto settled_flush = [&](cudaStream_t s) {
      memset_flush(s);
      testkit::launch_empty(s);
    };
    auto kernel_flush = [&](cudaStream_t s) {
      testkit::launch_fill(s, static_cast<int*>(buffer), 1, bytes / sizeof(int));
    };
    auto no_flush = [](cudaStream_t) {};
    (void)overhead_us(stream.get(), memset_flush); // warm up
    bench::result_line("event_envelope")
        .add("memset_us", overhead_us(stream.get(), memset_flush))
        .add("settled_us", overhead_us(stream.get(), settled_flush))
        .add("kernel_us", overhead_us(stream.get(), kernel_flush))
        .add("none_us", overhead_us(stream.get(), no_flush))
        .print();
    KT_CUDA_CHECK(cudaFree(buffer));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "event_envelope: %s\n", e.what());
    return 1;
  }
}
