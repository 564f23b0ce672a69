// An op on two streams: fork from the measured stream to a second one with an event, scale one
// array on each, join back. The measurement covers both streams; busy (sum of kernel times)
// above span shows how much the two kernels overlapped.

#include "cuda_check.hpp"
#include "elementwise.cuh"
#include "fill.cuh"
#include "kerntime/benchmark.hpp"

namespace kerntime::suite {
namespace {

void two_streams(state& s) {
  const auto count = static_cast<std::size_t>(s.get_int("elements"));
  auto x = make_input_sets<float>(s.input_sets(), count);
  auto y = make_input_sets<float>(s.input_sets(), count);
  for (int i = 0; i < s.input_sets(); ++i) {
    fill(x[i].data(), count, 2 * static_cast<std::uint64_t>(i), unit_float{});
    fill(y[i].data(), count, 2 * static_cast<std::uint64_t>(i) + 1, unit_float{});
  }
  cuda_stream second;
  cuda_event fork(cudaEventDisableTiming);
  cuda_event join(cudaEventDisableTiming);
  constexpr unsigned threads = 256;

  s.add_flops(2.0 * static_cast<double>(count));
  s.add_bytes(2.0 * 2.0 * static_cast<double>(count * sizeof(float)));
  s.exec([&](cudaStream_t stream, int input_set) {
    check_cuda(cudaEventRecord(fork.get(), stream), "cudaEventRecord (fork)");
    check_cuda(cudaStreamWaitEvent(second.get(), fork.get(), 0), "cudaStreamWaitEvent (fork)");
    scale_kernel<<<blocks_for(count, threads), threads, 0, stream>>>(x[input_set].data(), count,
                                                                     1.0f);
    check_launch("scale_kernel (first stream)");
    scale_kernel<<<blocks_for(count, threads), threads, 0, second.get()>>>(y[input_set].data(),
                                                                           count, 1.0f);
    check_launch("scale_kernel (second stream)");
    check_cuda(cudaEventRecord(join.get(), second.get()), "cudaEventRecord (join)");
    check_cuda(cudaStreamWaitEvent(stream, join.get(), 0), "cudaStreamWaitEvent (join)");
  });
}

} // namespace

KERNTIME_BENCHMARK(two_streams).add_int_power_of_two_axis("elements", 20, 24, 4);

} // namespace kerntime::suite
