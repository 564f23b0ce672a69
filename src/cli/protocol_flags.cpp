#include "cli/protocol_flags.hpp"

#include <charconv>

#include <fmt/format.h>

#include "kerntime/errors.hpp"

namespace kerntime::detail {

void read_warmup_flag(const std::string& text, protocol_request& request) {
  if (text == "auto") {
    request.warmup_auto = true;
    return;
  }
  long long count = 0;
  const char* end = text.data() + text.size();
  const auto [stop, problem] = std::from_chars(text.data(), end, count);
  if (text.empty() || problem != std::errc() || stop != end) {
    throw invalid_argument(fmt::format(
        "--warmup takes a count of iterations or auto (got \"{}\"); e.g. --warmup 10 or --warmup "
        "auto",
        text));
  }
  request.warmup = count;
}

} // namespace kerntime::detail
