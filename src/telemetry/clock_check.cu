#include "telemetry/clock_check.hpp"

#include <cuda_runtime.h>

#include <string>

#include "kerntime/cuda.hpp"

namespace kerntime::detail {
namespace {

// One thread. Both ends sit on a %globaltimer tick edge, so the timer interval carries no
// quantisation error, and each clock64() is read right after its edge was seen.
__global__ void measure_sm_clock(clock_check_reading* out, std::uint64_t spin_ns) {
  const std::uint64_t first_ns = global_timer_ns();
  std::uint64_t start_ns = first_ns;
  while (start_ns == first_ns) {
    start_ns = global_timer_ns();
  }
  const long long start_cycles = clock64();
  std::uint64_t end_ns = start_ns;
  while (end_ns - start_ns < spin_ns) {
    end_ns = global_timer_ns();
  }
  const long long end_cycles = clock64();
  out->cycles = static_cast<std::uint64_t>(end_cycles - start_cycles);
  out->nanoseconds = end_ns - start_ns;
}

} // namespace

std::optional<double> sm_clock_mhz(const clock_check_reading& reading) {
  if (reading.nanoseconds == 0 || reading.cycles == 0) {
    return std::nullopt;
  }
  const double mhz =
      static_cast<double>(reading.cycles) * 1000.0 / static_cast<double>(reading.nanoseconds);
  // No GPU clocks an SM outside this range; a value outside it is a broken reading.
  if (mhz < 10.0 || mhz > 10'000.0) {
    return std::nullopt;
  }
  return mhz;
}

std::unique_ptr<clock_check> clock_check::create(std::string& reason) {
  if (cudaError_t pending = cudaPeekAtLastError(); pending != cudaSuccess) {
    // Not ours to clear: the benchmark (or the caller) left it, and must see it.
    reason = std::string("a CUDA error was pending before the clock check was set up: ") +
             cudaGetErrorName(pending);
    return nullptr;
  }
  void* slot = nullptr;
  if (cudaError_t e = cudaHostAlloc(&slot, sizeof(clock_check_reading), cudaHostAllocMapped);
      e != cudaSuccess) {
    (void)cudaGetLastError(); // our own failure, cleared so it is not blamed on the benchmark
    reason = std::string("cannot allocate the clock-check slot: ") + cudaGetErrorName(e);
    return nullptr;
  }
  void* device_slot = nullptr;
  if (cudaError_t e = cudaHostGetDevicePointer(&device_slot, slot, 0); e != cudaSuccess) {
    (void)cudaGetLastError();
    (void)cudaFreeHost(slot);
    reason = std::string("cannot map the clock-check slot: ") + cudaGetErrorName(e);
    return nullptr;
  }
  std::unique_ptr<clock_check> check(new clock_check(
      static_cast<clock_check_reading*>(slot), static_cast<clock_check_reading*>(device_slot)));
  // One check now, untimed, so a missing kernel image or a refused launch shows here and not in
  // the middle of a measurement.
  cudaStream_t stream = nullptr;
  if (cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking); e != cudaSuccess) {
    (void)cudaGetLastError();
    reason = std::string("cannot create a stream for the clock check: ") + cudaGetErrorName(e);
    return nullptr;
  }
  const bool launched = check->enqueue(stream);
  cudaError_t e = cudaStreamSynchronize(stream);
  if (e == cudaSuccess && !launched) {
    e = cudaPeekAtLastError();
  }
  (void)cudaStreamDestroy(stream);
  if (e != cudaSuccess || !launched || !check->read_mhz()) {
    (void)cudaGetLastError();
    reason = std::string("the clock-check kernel did not run: ") +
             (e != cudaSuccess ? cudaGetErrorName(e) : "no reading");
    return nullptr;
  }
  return check;
}

clock_check::~clock_check() {
  (void)cudaFreeHost(slot_);
}

bool clock_check::enqueue(cudaStream_t stream) {
  *slot_ = clock_check_reading{};
  measure_sm_clock<<<1, 1, 0, stream>>>(device_slot_, clock_check_spin_ns);
  return cudaPeekAtLastError() == cudaSuccess;
}

std::optional<double> clock_check::read_mhz() const {
  // volatile: the GPU wrote this memory behind the compiler's back.
  const volatile clock_check_reading* slot = slot_;
  return sm_clock_mhz(clock_check_reading{slot->cycles, slot->nanoseconds});
}

} // namespace kerntime::detail
