#include "attribution/tag_index.hpp"

#include <algorithm>

namespace kerntime::detail {
namespace {

// A table may hold this many slots per tag before the sorted list is the smaller choice.
constexpr std::uint64_t slots_per_tag = 16;
constexpr std::uint64_t table_floor = 4096;

} // namespace

tag_index::tag_index(const activity_log& log) {
  if (log.tags.empty()) {
    return;
  }
  const auto [lowest, highest] =
      std::minmax_element(log.tags.begin(), log.tags.end(), [](const auto& a, const auto& b) {
        return a.correlation_id < b.correlation_id;
      });
  lowest_ = lowest->correlation_id;
  const std::uint64_t span = std::uint64_t{highest->correlation_id} - lowest_ + 1;
  if (span <= slots_per_tag * log.tags.size() + table_floor) {
    by_offset_.assign(span, nullptr);
    for (const correlation_tag& tag : log.tags) {
      const correlation_tag*& slot = by_offset_[tag.correlation_id - lowest_];
      if (slot == nullptr) {
        slot = &tag;
      } else {
        note(tag.correlation_id, slot, tag);
      }
    }
    return;
  }
  sorted_.reserve(log.tags.size());
  for (const correlation_tag& tag : log.tags) {
    sorted_.emplace_back(tag.correlation_id, &tag);
  }
  // Stable: the first-logged tag of a correlation id stays first.
  std::stable_sort(sorted_.begin(), sorted_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 1; i < sorted_.size(); ++i) {
    if (sorted_[i - 1].first == sorted_[i].first) {
      note(sorted_[i].first, sorted_[i - 1].second, *sorted_[i].second);
    }
  }
}

void tag_index::note(std::uint32_t correlation_id, const correlation_tag* first,
                     const correlation_tag& tag) {
  if (!conflict_ && (first->kind != tag.kind || first->id != tag.id)) {
    conflict_ = correlation_id;
  }
}

const correlation_tag* tag_index::find(std::uint32_t correlation_id) const {
  if (!by_offset_.empty()) {
    const std::uint64_t offset = std::uint64_t{correlation_id} - lowest_;
    return correlation_id >= lowest_ && offset < by_offset_.size() ? by_offset_[offset] : nullptr;
  }
  const auto it = std::lower_bound(
      sorted_.begin(), sorted_.end(), correlation_id,
      [](const auto& entry, std::uint32_t correlation) { return entry.first < correlation; });
  return it != sorted_.end() && it->first == correlation_id ? it->second : nullptr;
}

std::optional<std::uint64_t> tag_index::iteration_of(std::uint32_t correlation_id) const {
  const correlation_tag* tag = find(correlation_id);
  if (tag == nullptr || tag->kind != tag_kind::iteration) {
    return std::nullopt;
  }
  return tag->id;
}

} // namespace kerntime::detail
