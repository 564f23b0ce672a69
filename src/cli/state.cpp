#include <fmt/format.h>

#include "kerntime/benchmark.hpp"
#include "result/message_words.hpp"

namespace kerntime {

state::state(std::string name, std::string benchmark_name,
             std::vector<std::pair<std::string, axis_value>> values, protocol p)
    : name_(std::move(name)), benchmark_name_(std::move(benchmark_name)),
      values_(std::move(values)), protocol_(p) {}

const state::axis_value& state::find(std::string_view axis_name) const {
  for (const auto& [name, value] : values_) {
    if (name == axis_name) {
      return value;
    }
  }
  throw invalid_argument(fmt::format("benchmark '{}' has no axis named '{}'; add it at "
                                     "registration (e.g. .add_int_axis(\"{}\", {{...}}))",
                                     benchmark_name_, axis_name, axis_name));
}

namespace {
template <typename T>
const T& get_as(const state::axis_value& value, std::string_view benchmark_name,
                std::string_view axis_name, std::string_view wanted) {
  if (const T* v = std::get_if<T>(&value)) {
    return *v;
  }
  throw invalid_argument(fmt::format("benchmark '{}': axis '{}' is not {} axis", benchmark_name,
                                     axis_name, detail::with_article(wanted)));
}
} // namespace

std::int64_t state::get_int(std::string_view axis_name) const {
  return get_as<std::int64_t>(find(axis_name), benchmark_name_, axis_name, "int");
}

double state::get_float(std::string_view axis_name) const {
  return get_as<double>(find(axis_name), benchmark_name_, axis_name, "float");
}

const std::string& state::get_string(std::string_view axis_name) const {
  return get_as<std::string>(find(axis_name), benchmark_name_, axis_name, "string or type");
}

const std::string& state::get_type(std::string_view axis_name) const {
  return get_string(axis_name);
}

void state::add_flops(double flops) {
  if (!(flops >= 0)) {
    throw invalid_argument(fmt::format("{}: add_flops needs a count >= 0 (got {})", name(), flops));
  }
  flops_ = flops_.value_or(0) + flops;
}

void state::add_flops(double flops, flop_precision precision) {
  if (flops_precision_ && *flops_precision_ != precision) {
    throw invalid_argument(fmt::format("{}: add_flops was given {} and then {}; a state declares "
                                       "one precision (declare the dominant one)",
                                       name(), to_string(*flops_precision_), to_string(precision)));
  }
  add_flops(flops);
  flops_precision_ = precision;
}

void state::add_bytes(double bytes_read_and_written) {
  if (!(bytes_read_and_written >= 0)) {
    throw invalid_argument(
        fmt::format("{}: add_bytes needs a count >= 0 (got {})", name(), bytes_read_and_written));
  }
  bytes_ = bytes_.value_or(0) + bytes_read_and_written;
}

void state::skip(std::string reason) {
  skip_reason_ = std::move(reason);
}

void state::exec(const work_function& work, cudaStream_t stream) {
  if (is_skipped()) {
    return;
  }
  if (executed_) {
    throw invalid_argument(
        fmt::format("{}: state.exec was called twice; a state measures one piece of work", name()));
  }
  executed_ = true;
  result_ = measure(work, protocol_, stream);
}

void state::exec(const work_function& work, launch_mode launch, cudaStream_t stream) {
  protocol_.launch = launch;
  exec(work, stream);
}

} // namespace kerntime
