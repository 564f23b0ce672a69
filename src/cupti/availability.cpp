#include "cupti/availability.hpp"

#include <fmt/format.h>

#include <variant>

#include "cupti/cupti_session.hpp"

namespace kerntime::detail {

std::optional<std::string> probe_cupti() {
  const auto loaded = load_cupti();
  if (const auto* why = std::get_if<std::string>(&loaded)) {
    return *why;
  }
  attach_outcome outcome;
  cupti_session session(*std::get<const cupti_library*>(loaded), outcome);
  if (!outcome.attached) {
    if (outcome.result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
      return fmt::format("{}: {}", describe(outcome.holder), outcome.detail);
    }
    return outcome.detail;
  }
  (void)session.detach();
  return std::nullopt;
}

} // namespace kerntime::detail
