#pragma once
// The one line each GPU benchmark prints for scripts/gpu_check.sh:
//   RESULT <benchmark> key=value key=value ...
// Keys and values never contain spaces, so a shell or Python split reads them.

#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kerntime::bench {

class result_line {
public:
  explicit result_line(std::string_view benchmark) : text_(fmt::format("RESULT {}", benchmark)) {}

  result_line& add(std::string_view key, double value) {
    text_ += fmt::format(" {}={:.6g}", key, value);
    return *this;
  }
  result_line& add(std::string_view key, std::string_view value) {
    text_ += fmt::format(" {}={}", key, value);
    return *this;
  }

  void print() const {
    std::puts(text_.c_str());
    std::fflush(stdout);
  }

private:
  std::string text_;
};

} // namespace kerntime::bench
