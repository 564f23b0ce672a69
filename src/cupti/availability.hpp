#pragma once
// Whether CUPTI can be attached in this process right now, for `kerntime info`.

#include <optional>
#include <string>

namespace kerntime::detail {

// Loads CUPTI and attaches and detaches once. nullopt: usable; otherwise why not (not loadable,
// another profiler holds it, not supported, no permission, virtualized or MIG device...).
[[nodiscard]] std::optional<std::string> probe_cupti();

} // namespace kerntime::detail
