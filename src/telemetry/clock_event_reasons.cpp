#include "telemetry/clock_event_reasons.hpp"

#include <array>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace kerntime::detail {

std::vector<std::string> decode_clock_event_reasons(std::uint64_t mask) {
  namespace r = clock_event_reason;
  static constexpr std::array<std::pair<std::uint64_t, std::string_view>, 9> known{{
      {r::gpu_idle, "gpu_idle"},
      {r::applications_clocks_setting, "applications_clocks_setting"},
      {r::sw_power_cap, "sw_power_cap"},
      {r::hw_slowdown, "hw_slowdown"},
      {r::sync_boost, "sync_boost"},
      {r::sw_thermal_slowdown, "sw_thermal_slowdown"},
      {r::hw_thermal_slowdown, "hw_thermal_slowdown"},
      {r::hw_power_brake_slowdown, "hw_power_brake_slowdown"},
      {r::display_clock_setting, "display_clock_setting"},
  }};
  std::vector<std::string> names;
  for (int bit = 0; bit < 64; ++bit) {
    const std::uint64_t value = std::uint64_t{1} << bit;
    if ((mask & value) == 0) {
      continue;
    }
    std::string name = fmt::format("unknown({:#x})", value);
    for (const auto& [known_value, known_name] : known) {
      if (known_value == value) {
        name = known_name;
      }
    }
    names.push_back(std::move(name));
  }
  return names;
}

} // namespace kerntime::detail
