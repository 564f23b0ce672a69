#pragma once
// kerntime's tags as CUPTI's external-correlation kinds, in one table: the session pushes them,
// the decoder reads them back.

#include <cupti_activity.h>

#include <array>
#include <optional>
#include <utility>

#include "cupti/activity_log.hpp"

namespace kerntime::detail {

inline constexpr std::array<std::pair<tag_kind, CUpti_ExternalCorrelationKind>, 3> tag_kinds{{
    {tag_kind::iteration, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0},
    {tag_kind::flush, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1},
    {tag_kind::internal, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2},
}};

[[nodiscard]] constexpr CUpti_ExternalCorrelationKind external_kind(tag_kind kind) {
  for (const auto& [ours, theirs] : tag_kinds) {
    if (ours == kind) {
      return theirs;
    }
  }
  return CUPTI_EXTERNAL_CORRELATION_KIND_INVALID;
}

// nullopt for another tool's kinds: not ours to interpret.
[[nodiscard]] constexpr std::optional<tag_kind> tag_kind_of(CUpti_ExternalCorrelationKind kind) {
  for (const auto& [ours, theirs] : tag_kinds) {
    if (theirs == kind) {
      return ours;
    }
  }
  return std::nullopt;
}

} // namespace kerntime::detail
