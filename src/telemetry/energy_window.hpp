#pragma once
// The window over which a measurement's energy is read: NVML's total-energy counter once before
// the first trial and once after the last, and the iterations the GPU ran in between.
//
// Why not per trial: on the H200 (driver 580) the counter advances in steps about every 100 ms
// and one read costs 2.6-4.8 ms of host time (docs/telemetry.md). A trial of a few milliseconds
// reads either no step or a whole one (tens of joules over a few hundred iterations), and two
// reads per trial tripled the wall time of small states. One pair per measurement, and only when
// the window is long enough for a step at each end to stay within 10 %.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace kerntime::detail {

// A step (~0.1 s on the H200) at each end of a 2 s window is at most a 10 % error.
inline constexpr std::chrono::duration<double> energy_min_window{2.0};

struct energy_window {
  std::optional<std::uint64_t> mj_before; // the counter before the first trial
  std::optional<std::uint64_t> mj_after;  // after the last; not read when the window is too short
  double seconds = 0;                     // host time between the first read and the window's end
  double min_seconds = energy_min_window.count(); // shorter windows are not read at the end
  std::size_t iterations = 0; // every iteration run in the window, re-run trials too
};

} // namespace kerntime::detail
