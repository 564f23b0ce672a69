#pragma once
// The trends page of the results history (`kerntime history show --html`): one self-contained
// page (inline CSS and SVG; no script, nothing fetched when it is viewed) with a chart per series
// of nightly runs: each run's median and interval, the level between change points, and each
// change marked with its size and the commits around it, so the commit range to bisect is read
// off the chart. Drawn compactly (a path per kind of mark, not an element per run) so a nightly
// suite of 2,600 states stays a page a browser opens.

#include <span>
#include <string>
#include <vector>

#include "history/change_points.hpp"
#include "history/history_store.hpp"

namespace kerntime::detail {

// One series as the page draws it: what the store read and what find_change_points found in it.
struct trend_series {
  std::string device;                   // GPU model
  std::string state;                    // state name, e.g. "gemm_bf16/size=4096"
  std::vector<series_point> points;     // oldest first
  std::vector<change_point> changes;    // from find_change_points over the points' median_ns
  std::vector<bool> slower_beyond_band; // one per change: its whole interval above the band
};

struct trends_page_options {
  std::string store;       // the store's name, shown in the title
  double threshold = 0.01; // the band used for "slower beyond the band"
};

// One self-contained page. The series slower at the tip (their last change slower beyond the
// band) come first, then the others by state name and GPU model.
[[nodiscard]] std::string trends_page(std::span<const trend_series> series,
                                      const trends_page_options& options);

} // namespace kerntime::detail
