#include "back_to_back.hpp"

#include <chrono>
#include <vector>

#include "cuda_check.hpp"

namespace kerntime::bench {
namespace {

__global__ void stamp(std::uint64_t* times, int i) {
  times[i] = global_timer_ns();
}

constexpr long long clock_cycles = 2'000'000;

__global__ void clock_rate(std::uint64_t* elapsed_ns) {
  const std::uint64_t start = global_timer_ns();
  const long long first = clock64();
  while (clock64() - first < clock_cycles) {
  }
  *elapsed_ns = global_timer_ns() - start;
}

} // namespace

back_to_back::back_to_back() {
  KT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  stamp<<<1, 1, 0, stream_>>>(times_.data(), 0); // load the module before any reading
  KT_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

back_to_back::~back_to_back() {
  cudaStreamDestroy(stream_);
}

probe_reading back_to_back::read() {
  using clock_type = std::chrono::steady_clock;
  blocker_.block(stream_, std::chrono::seconds(2));
  const auto start = clock_type::now();
  for (int i = 0; i < kernels; ++i) {
    stamp<<<1, 1, 0, stream_>>>(times_.data(), i);
  }
  const double host_s = std::chrono::duration<double>(clock_type::now() - start).count();
  KT_CUDA_CHECK(cudaGetLastError());
  blocker_.release();
  KT_CUDA_CHECK(cudaStreamSynchronize(stream_));
  std::vector<std::uint64_t> times(kernels);
  KT_CUDA_CHECK(cudaMemcpy(times.data(), times_.data(), times_.bytes(), cudaMemcpyDeviceToHost));
  probe_reading r;
  r.gpu_us_per_kernel =
      static_cast<double>(times.back() - times.front()) / 1e3 / static_cast<double>(kernels - 1);
  r.host_us_per_launch = 1e6 * host_s / kernels;
  r.sm_clock_mhz = sm_clock_mhz();
  return r;
}

double back_to_back::sm_clock_mhz() {
  clock_rate<<<1, 1, 0, stream_>>>(times_.data());
  KT_CUDA_CHECK(cudaGetLastError());
  std::uint64_t elapsed = 0;
  KT_CUDA_CHECK(
      cudaMemcpyAsync(&elapsed, times_.data(), sizeof(elapsed), cudaMemcpyDeviceToHost, stream_));
  KT_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return 1e3 * static_cast<double>(clock_cycles) / static_cast<double>(elapsed);
}

} // namespace kerntime::bench
