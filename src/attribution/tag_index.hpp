#pragma once
// kerntime's tag of each API call, found by correlation id. Attribution and the judgements of the
// work each look up every record's tag. CUPTI numbers API calls one after another, so the tags
// of a measurement cover a narrow range of ids: a table indexed by id answers in one step, with
// one allocation, where a hash map made one allocation per tag (most of the time spent on the
// records of a measurement with many of them, bench_decode_attribution_cpu). Ids spread wider
// than that (other threads calling CUDA meanwhile) fall back to a sorted list.

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "cupti/activity_log.hpp"

namespace kerntime::detail {

class tag_index {
public:
  explicit tag_index(const activity_log& log);

  // The tag of the call with `correlation_id` (the first one logged), or null when untagged.
  [[nodiscard]] const correlation_tag* find(std::uint32_t correlation_id) const;
  // The iteration id of a call tagged as an iteration; empty for other tags and untagged calls.
  [[nodiscard]] std::optional<std::uint64_t> iteration_of(std::uint32_t correlation_id) const;
  // A correlation id that carries two different tags, if any (the iteration is then ambiguous).
  [[nodiscard]] std::optional<std::uint32_t> conflicting_correlation() const { return conflict_; }

private:
  void note(std::uint32_t correlation_id, const correlation_tag* first, const correlation_tag& tag);

  std::uint32_t lowest_ = 0;
  std::vector<const correlation_tag*> by_offset_; // [id - lowest_]; used when ids are dense
  std::vector<std::pair<std::uint32_t, const correlation_tag*>> sorted_; // otherwise
  std::optional<std::uint32_t> conflict_;
};

} // namespace kerntime::detail
