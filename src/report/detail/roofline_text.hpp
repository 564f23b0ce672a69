#pragma once
// The speed of light and the energy as every report words them, so a table cell, a tooltip, a
// CSV column and a JUnit property never disagree.

#include <optional>
#include <string>

#include "kerntime/roofline.hpp"
#include "kerntime/telemetry.hpp"

namespace kerntime::detail {

// The share of the peak for the bound the roofline names (the larger of the two shares), if known.
[[nodiscard]] std::optional<double> bound_share(roofline_bound bound,
                                                std::optional<double> compute_pct,
                                                std::optional<double> memory_pct);

// "73.2% compute", or empty when the bound's share is unknown.
[[nodiscard]] std::string bound_share_text(roofline_bound bound, std::optional<double> compute_pct,
                                           std::optional<double> memory_pct);

// "45.612 mJ" below one joule, "1.234 J" from there on.
[[nodiscard]] std::string energy_text(double joules);

// " (NVML's energy counter over 5.712 s of trials, the L2 flushes and the gaps between trials
// included)"; a file from before the window was recorded gets the words without the length.
[[nodiscard]] std::string energy_window_text(const energy_summary& e);

} // namespace kerntime::detail
