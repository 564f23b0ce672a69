#pragma once
// The on-GPU clock check: one single-thread kernel that spins for a fixed time on %globaltimer and
// counts clock64() cycles over the same interval on the same SM. Their ratio is the SM clock the
// GPU actually ran at, independent of NVML (which may be missing, or sample at another moment).

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace kerntime::detail {

// The spin. %globaltimer ticks in 32 ns (or, on some systems, 1 us) steps; the kernel starts and
// stops on a tick edge, so the interval is exact and the error is the latency of one poll of the
// timer (tens of ns, < 0.5 % of 16 us). 16 us is ~0.6 % of the shortest default trial (50
// iterations of a >= 57 us flush plus the work).
inline constexpr std::uint64_t clock_check_spin_ns = 16'000;

// What one check recorded on the GPU.
struct clock_check_reading {
  std::uint64_t cycles = 0;      // clock64() difference
  std::uint64_t nanoseconds = 0; // %globaltimer difference
};

// cycles / ns * 1000; empty when nothing was recorded or the result is not a possible SM clock
// (e.g. the block was preempted and resumed on another SM, whose counter differs).
[[nodiscard]] std::optional<double> sm_clock_mhz(const clock_check_reading& reading);

class clock_check {
public:
  // Allocates the result slot on the current CUDA device and runs one check to prove the kernel
  // launches there. nullptr, with `reason` set, when CUDA refuses (no device, no kernel image).
  [[nodiscard]] static std::unique_ptr<clock_check> create(std::string& reason);
  ~clock_check();
  clock_check(const clock_check&) = delete;
  clock_check& operator=(const clock_check&) = delete;

  // Enqueues one check on `stream`, behind the work already there. Never clears CUDA's error
  // state (a pending error belongs to the benchmark). False when the launch was refused.
  bool enqueue(cudaStream_t stream);

  // The SM clock recorded by the last enqueue(); valid only after `stream` was synchronized.
  [[nodiscard]] std::optional<double> read_mhz() const;

private:
  clock_check(clock_check_reading* slot, clock_check_reading* device_slot)
      : slot_(slot), device_slot_(device_slot) {}
  // Pinned, mapped host memory the kernel writes directly: no copy to enqueue or to time.
  clock_check_reading* slot_;
  clock_check_reading* device_slot_; // the same memory as the GPU addresses it
};

} // namespace kerntime::detail
