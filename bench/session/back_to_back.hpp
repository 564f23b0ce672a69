#pragma once
// The back-to-back probe of bench_session_cost: 800 kernels that each write %globaltimer, queued
// behind a blocking kernel and released at once, so they run back to back on the GPU. The GPU
// time per kernel is (last stamp - first stamp) / 799, read with the GPU's own clock, not CUPTI;
// the host cost per launch is the host time of queueing them. The SM clock is read after each
// probe: the card runs under a power cap, and the GPU's own launch rate may follow its clock.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kerntime/cuda.hpp"
#include "measure/blocking_kernel.hpp"

namespace kerntime::bench {

struct probe_reading {
  double gpu_us_per_kernel = 0;
  double host_us_per_launch = 0;
  double sm_clock_mhz = 0; // right after the kernels: cycles counted over a %globaltimer interval
};

class back_to_back {
public:
  static constexpr int kernels = 800; // below the launch queue's ~1,020 (docs/queue.md)

  back_to_back();
  ~back_to_back();
  back_to_back(const back_to_back&) = delete;
  back_to_back& operator=(const back_to_back&) = delete;

  probe_reading read();
  // The SM clock now: one thread counts 2,000,000 cycles of clock64() against %globaltimer.
  double sm_clock_mhz();

private:
  cudaStream_t stream_ = nullptr;
  device_buffer<std::uint64_t> times_{kernels};
  detail::blocking_kernel blocker_;
};

} // namespace kerntime::bench
