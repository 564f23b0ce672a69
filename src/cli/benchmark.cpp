#include "kerntime/benchmark.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace kerntime {

benchmark::benchmark(std::string name, benchmark_function function)
    : name_(std::move(name)), function_(std::move(function)) {
  if (name_.empty() || name_.find_first_of("/= ") != std::string::npos) {
    throw invalid_argument(fmt::format(
        "benchmark name '{}' must be non-empty without '/', '=' or spaces (they separate the "
        "parts of a state name)",
        name_));
  }
}

benchmark& benchmark::add_axis(axis a) {
  // Axis names appear in state names and in `-a NAME=...`; these characters would be ambiguous.
  if (a.name.empty() || a.name.find_first_of("/=[]:, ") != std::string::npos) {
    throw invalid_argument(fmt::format(
        "benchmark '{}': axis name '{}' must be non-empty without '/', '=', '[', ']', ':', ',' "
        "or spaces",
        name_, a.name));
  }
  const bool taken = std::any_of(axes_.begin(), axes_.end(),
                                 [&](const axis& existing) { return existing.name == a.name; });
  if (taken) {
    throw invalid_argument(
        fmt::format("benchmark '{}' already has an axis named '{}'", name_, a.name));
  }
  if (a.size() == 0) {
    throw invalid_argument(
        fmt::format("benchmark '{}': axis '{}' needs at least one value", name_, a.name));
  }
  axes_.push_back(std::move(a));
  return *this;
}

benchmark& benchmark::add_int_axis(std::string name, std::vector<std::int64_t> values) {
  return add_axis({std::move(name), int_axis_values{std::move(values)}});
}

benchmark& benchmark::add_int_power_of_two_axis(std::string name, int first_exponent,
                                                int last_exponent, int step) {
  if (first_exponent < 0 || last_exponent > 62 || first_exponent > last_exponent || step < 1) {
    throw invalid_argument(fmt::format(
        "benchmark '{}': power-of-two axis '{}' needs 0 <= first <= last <= 62 and step >= 1 "
        "(got first {}, last {}, step {})",
        name_, name, first_exponent, last_exponent, step));
  }
  int_axis_values powers{{}, true};
  for (int e = first_exponent; e <= last_exponent; e += step) {
    powers.values.push_back(std::int64_t{1} << e);
  }
  return add_axis({std::move(name), std::move(powers)});
}

benchmark& benchmark::add_float_axis(std::string name, std::vector<double> values) {
  return add_axis({std::move(name), float_axis_values{std::move(values)}});
}

benchmark& benchmark::add_string_axis(std::string name, std::vector<std::string> values) {
  return add_axis({std::move(name), string_axis_values{std::move(values)}});
}

benchmark& benchmark::add_type_axis(std::string name, std::vector<std::string> type_names) {
  return add_axis({std::move(name), type_axis_values{std::move(type_names)}});
}

benchmark_registry& benchmark_registry::global() {
  // A function-local static: registration runs from static initializers in other translation
  // units, whose order relative to a namespace-scope registry is unspecified.
  static benchmark_registry registry;
  return registry;
}

benchmark& benchmark_registry::add(std::string name, benchmark_function function) {
  const bool taken = std::any_of(benchmarks_.begin(), benchmarks_.end(),
                                 [&](const auto& existing) { return existing->name() == name; });
  if (taken) {
    throw invalid_argument(fmt::format("a benchmark named '{}' is already registered", name));
  }
  benchmarks_.push_back(std::make_unique<benchmark>(std::move(name), std::move(function)));
  return *benchmarks_.back();
}

benchmark& register_benchmark(std::string name, benchmark_function function) {
  return benchmark_registry::global().add(std::move(name), std::move(function));
}

} // namespace kerntime
