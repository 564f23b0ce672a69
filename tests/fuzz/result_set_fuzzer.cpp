// Fuzzes the kerntime JSON reader (what `kerntime compare` and `run --baseline` read): any text
// either reads as a result set or is refused with kerntime::invalid_argument naming the file. A
// set that reads is then compared with itself and rendered, as compare does with its inputs.
// Anything else escaping (an nlohmann exception, std::bad_alloc, ...) is a finding.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "kerntime/compare.hpp"
#include "kerntime/report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<kerntime::result_set> sets;
  try {
    sets.push_back(kerntime::parse_result_set(text, "fuzz.json"));
  } catch (const kerntime::invalid_argument&) {
    return 0;
  }
  try {
    const kerntime::comparison c = kerntime::compare(sets, sets);
    static_cast<void>(kerntime::comparison_markdown(c));
  } catch (const kerntime::error&) {
  }
  return 0;
}
