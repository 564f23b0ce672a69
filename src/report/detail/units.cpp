#include "report/detail/units.hpp"

#include <fmt/format.h>

namespace kerntime::detail {

std::string human_duration(double ns) {
  if (ns < 1e6) {
    return fmt::format("{:.3f} \xC2\xB5s", ns / 1e3);
  }
  return fmt::format("{:.3f} ms", ns / 1e6);
}

std::string fixed_ms(double ns) {
  return fmt::format("{:.6f}", ns / 1e6);
}

std::string change_text(double ratio) {
  return fmt::format("{:+.2f} %", 100 * (ratio - 1));
}

std::string percent(double fraction) {
  return fmt::format("{:.2f}%", fraction * 100.0);
}

namespace {

std::optional<double> per_second(const benchmark_run& run, const std::optional<double>& amount,
                                 double unit) {
  if (!amount || !run.result || run.result->latency_ns <= 0) {
    return std::nullopt;
  }
  return *amount / (run.result->latency_ns * 1e-9) / unit;
}

} // namespace

std::optional<double> tflop_per_second(const benchmark_run& run) {
  return per_second(run, run.flops, 1e12);
}

std::optional<double> gigabytes_per_second(const benchmark_run& run) {
  return per_second(run, run.bytes, 1e9);
}

} // namespace kerntime::detail
