#pragma once
// A user's --filter pattern, matched with RE2: linear time and bounded memory whatever the
// pattern (std::regex recursed on long or deeply nested patterns and crashed). The syntax is
// RE2's (docs/report-formats.md's bad-input table lists what is refused).

#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace kerntime::detail {

class name_pattern {
public:
  // Throws kerntime::invalid_argument naming `flag`, the (shortened) pattern and RE2's reason.
  name_pattern(const std::string& pattern, std::string_view flag);
  ~name_pattern();
  name_pattern(name_pattern&&) noexcept;
  name_pattern& operator=(name_pattern&&) noexcept;
  name_pattern(const name_pattern&) = delete;
  name_pattern& operator=(const name_pattern&) = delete;

  // True when the pattern matches anywhere in `name`.
  [[nodiscard]] bool finds(std::string_view name) const;

private:
  std::unique_ptr<re2::RE2> compiled_;
};

} // namespace kerntime::detail
