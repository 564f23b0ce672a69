#include "cli/name_pattern.hpp"

#include <fmt/format.h>
#include <re2/re2.h>

#include "cli/input_text.hpp"
#include "kerntime/errors.hpp"

namespace kerntime::detail {
namespace {

// RE2's default program budget (8 MiB) holds any sensible filter; a pattern that needs more is
// refused with RE2's "pattern too large" instead of growing without bound.
constexpr std::int64_t max_pattern_memory = 8 << 20;

} // namespace

name_pattern::name_pattern(const std::string& pattern, std::string_view flag) {
  RE2::Options options;
  options.set_log_errors(false); // the reason goes into our one-line message, not stderr
  options.set_max_mem(max_pattern_memory);
  compiled_ = std::make_unique<re2::RE2>(pattern, options);
  if (!compiled_->ok()) {
    throw invalid_argument(fmt::format(
        "{} {} is not a pattern kerntime can use: {}; use RE2 syntax such as 'gemm|copy' and "
        "escape special characters with '\\' (backreferences and lookaround are not supported)",
        flag, quoted_input(pattern), compiled_->error()));
  }
}

name_pattern::~name_pattern() = default;
name_pattern::name_pattern(name_pattern&&) noexcept = default;
name_pattern& name_pattern::operator=(name_pattern&&) noexcept = default;

bool name_pattern::finds(std::string_view name) const {
  return RE2::PartialMatch(re2::StringPiece(name.data(), name.size()), *compiled_);
}

} // namespace kerntime::detail
