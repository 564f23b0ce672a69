#pragma once
// `kerntime run --peaks FILE`: peaks that replace the table's, for a GPU the table lacks or a
// figure someone trusts more (a datasheet's, a clock-locked card's). The file:
//   {"flops_per_s": {"bf16_tensor": 989.4e12, "fp32": 66.9e12}, "bytes_per_s": 4.8e12}
// Either key may be left out; what it names replaces the table's figure, the rest stays.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "kerntime/roofline.hpp"
#include "roofline/peak_table.hpp"

namespace kerntime::detail {

struct peak_overrides {
  std::map<flop_precision, double> flops_per_s;
  std::optional<double> bytes_per_s;
  std::string source; // the file
};

// Throw kerntime::invalid_argument naming the file, what is wrong and the fix.
[[nodiscard]] peak_overrides parse_peak_overrides(std::string_view json_text,
                                                  std::string_view source);
[[nodiscard]] peak_overrides read_peak_overrides(const std::filesystem::path& path);

// The table's peaks with the file's figures in their place (the file alone where the table has
// no row for the GPU).
[[nodiscard]] std::optional<device_peaks> apply_overrides(std::optional<device_peaks> table,
                                                          const peak_overrides& overrides);

} // namespace kerntime::detail
