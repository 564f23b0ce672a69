#pragma once
// NVML's clock-event (formerly "throttle") reasons: why the GPU's clocks are below their maximum.
// Bit values from NVIDIA's NVML reference (nvmlClocksEventReason*).

#include <cstdint>
#include <string>
#include <vector>

namespace kerntime::detail {

namespace clock_event_reason {
inline constexpr std::uint64_t gpu_idle = 0x1;
inline constexpr std::uint64_t applications_clocks_setting = 0x2;
inline constexpr std::uint64_t sw_power_cap = 0x4;
inline constexpr std::uint64_t hw_slowdown = 0x8;
inline constexpr std::uint64_t sync_boost = 0x10;
inline constexpr std::uint64_t sw_thermal_slowdown = 0x20;
inline constexpr std::uint64_t hw_thermal_slowdown = 0x40;
inline constexpr std::uint64_t hw_power_brake_slowdown = 0x80;
inline constexpr std::uint64_t display_clock_setting = 0x100;

// The reasons NVML gives for holding the clocks below their maximum: reported beside each state
// as information. They are not the throttle verdict (throttle_decision.hpp): under a power cap
// NVML names sw_power_cap while the SM clock stays at 99 % of its maximum. Idle, the
// applications clocks setting, sync boost and the display clock are the card's configuration.
inline constexpr std::uint64_t slowdown = sw_power_cap | hw_slowdown | sw_thermal_slowdown |
                                          hw_thermal_slowdown | hw_power_brake_slowdown;
} // namespace clock_event_reason

// One name per set bit, lowest bit first: "gpu_idle", "applications_clocks_setting",
// "sw_power_cap", "hw_slowdown", "sync_boost", "sw_thermal_slowdown", "hw_thermal_slowdown",
// "hw_power_brake_slowdown", "display_clock_setting"; a bit NVML may add later reads
// "unknown(0x200)". An empty mask decodes to no names.
[[nodiscard]] std::vector<std::string> decode_clock_event_reasons(std::uint64_t mask);

} // namespace kerntime::detail
