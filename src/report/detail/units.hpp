#pragma once
// Numbers as each report shows them. Results hold nanoseconds; markdown picks a readable unit,
// CSV and JUnit use fixed milliseconds, JSON keeps full precision (nlohmann writes doubles so
// that they round-trip).

#include <optional>
#include <string>

#include "kerntime/report.hpp"

namespace kerntime::detail {

// "12.345 µs" below one millisecond, "1.234 ms" from there on; three decimals either way.
[[nodiscard]] std::string human_duration(double ns);

// Milliseconds with six decimals (nanosecond resolution), no unit: "0.175312".
[[nodiscard]] std::string fixed_ms(double ns);

// "0.69%" from 0.0069.
[[nodiscard]] std::string percent(double fraction);
// "+5.00 %" from a ratio of 1.05.
[[nodiscard]] std::string change_text(double ratio);

// Throughput at the headline latency, when the benchmark declared its work and the run is ok.
[[nodiscard]] std::optional<double> tflop_per_second(const benchmark_run& run);
[[nodiscard]] std::optional<double> gigabytes_per_second(const benchmark_run& run);

} // namespace kerntime::detail
