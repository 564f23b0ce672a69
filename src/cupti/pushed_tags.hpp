#pragma once
// The external-correlation ids kerntime pushed, per tag kind, so that a record carrying an id
// kerntime never pushed is recognised: while CUPTI is shared with torch.profiler that means the
// profiler (which pushes CUSTOM0 and CUSTOM1 ids of its own) is tracing.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "cupti/activity_log.hpp"

namespace kerntime::detail {

class pushed_tags {
public:
  // Ids mostly come in runs (1, 2, 3, ...): a run is stored as one range, so remembering a push
  // costs no allocation in the timed loop.
  void add(tag_kind kind, std::uint64_t id) {
    auto& ranges = ranges_.at(static_cast<std::size_t>(kind));
    if (!ranges.empty() && id >= ranges.back().first && id <= ranges.back().second + 1) {
      ranges.back().second = std::max(ranges.back().second, id);
      return;
    }
    ranges.emplace_back(id, id);
  }

  [[nodiscard]] bool contains(tag_kind kind, std::uint64_t id) const {
    for (const auto& [first, last] : ranges_.at(static_cast<std::size_t>(kind))) {
      if (id >= first && id <= last) {
        return true;
      }
    }
    return false;
  }

private:
  // Indexed by tag_kind: iteration, flush, internal.
  std::array<std::vector<std::pair<std::uint64_t, std::uint64_t>>, 3> ranges_;
};

} // namespace kerntime::detail
