#pragma once
// Normal draws for the statistics tests' simulations.

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

namespace kerntime::detail {

// Standard normal draws by Box–Muller on mt19937_64, whose output the standard fixes: the same
// numbers with every standard library (std::normal_distribution's are not).
class normal_draws {
public:
  explicit normal_draws(std::uint64_t seed) : bits_(seed) {}
  double operator()() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = static_cast<double>(bits_() >> 11) * 0x1.0p-53;
    const double u2 = static_cast<double>(bits_() >> 11) * 0x1.0p-53;
    const double r = std::sqrt(-2 * std::log1p(-u1));
    spare_ = r * std::sin(2 * std::numbers::pi * u2);
    has_spare_ = true;
    return r * std::cos(2 * std::numbers::pi * u2);
  }

private:
  std::mt19937_64 bits_;
  bool has_spare_ = false;
  double spare_ = 0;
};

} // namespace kerntime::detail
