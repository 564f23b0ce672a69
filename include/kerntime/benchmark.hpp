#pragma once
// Registering benchmarks for the kerntime command. A benchmark is a function of a `state`; its
// axes (integers, floats, strings, types) span states, and the function runs once per state:
// it reads the axis values, prepares its inputs, declares FLOPs and bytes, then hands the work to
// `state.exec`, which times it with the protocol from the command line.
//
//   void copy(kerntime::state& s) {
//     auto bytes = s.get_int("bytes");
//     ...allocate s.input_sets() copies...
//     s.add_bytes(2.0 * bytes);
//     s.exec([&](cudaStream_t stream, int set) { cudaMemcpyAsync(...); });
//   }
//   KERNTIME_BENCHMARK(copy).add_int_power_of_two_axis("bytes", 20, 28, 4);
//
// Link kerntime::kerntime_main to get `main` and the whole command line.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "kerntime/errors.hpp"
#include "kerntime/measure.hpp"
#include "kerntime/protocol.hpp"
#include "kerntime/result.hpp"
#include "kerntime/roofline.hpp"

namespace kerntime {

enum class axis_kind { int64, float64, string, type };
[[nodiscard]] std::string_view to_string(axis_kind k);

// One value of an axis, as a state holds it (a type axis holds the type's name).
using axis_value = std::variant<std::int64_t, double, std::string>;

// An axis's values, one typed list per kind. Integer axes registered as powers of two remember
// it, so `kerntime list` shows 2^20 and `-a N[pow2]=[...]` reads exponents.
struct int_axis_values {
  std::vector<std::int64_t> values;
  bool power_of_two = false;
};
struct float_axis_values {
  std::vector<double> values;
};
struct string_axis_values {
  std::vector<std::string> values;
};
struct type_axis_values {
  std::vector<std::string> values; // the types' names
};
using axis_values =
    std::variant<int_axis_values, float_axis_values, string_axis_values, type_axis_values>;

// One axis: a name and the values it takes.
struct axis {
  std::string name;
  axis_values values;

  [[nodiscard]] axis_kind kind() const noexcept;
  [[nodiscard]] std::size_t size() const;
  [[nodiscard]] bool power_of_two() const noexcept;
  // The i-th value as a state holds it, and as it appears in state names ("1048576", "bf16").
  [[nodiscard]] axis_value value(std::size_t i) const;
  [[nodiscard]] std::string value_text(std::size_t i) const;
  // The list of one kind; throws kerntime::invalid_argument for an axis of another kind.
  [[nodiscard]] const std::vector<std::int64_t>& ints() const;
  [[nodiscard]] const std::vector<double>& floats() const;
  [[nodiscard]] const std::vector<std::string>& strings() const; // string and type axes
};

class state;
using benchmark_function = std::function<void(state&)>;

class benchmark {
public:
  benchmark(std::string name, benchmark_function function);

  benchmark& add_int_axis(std::string name, std::vector<std::int64_t> values);
  // Values 2^first, 2^(first+step), ..., up to 2^last inclusive.
  benchmark& add_int_power_of_two_axis(std::string name, int first_exponent, int last_exponent,
                                       int step = 1);
  benchmark& add_float_axis(std::string name, std::vector<double> values);
  benchmark& add_string_axis(std::string name, std::vector<std::string> values);
  // The names of the types a typed benchmark dispatches on; see KERNTIME_BENCHMARK_TEMPLATE.
  benchmark& add_type_axis(std::string name, std::vector<std::string> type_names);

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] const std::vector<axis>& axes() const noexcept { return axes_; }
  [[nodiscard]] const benchmark_function& function() const noexcept { return function_; }

private:
  benchmark& add_axis(axis a);

  std::string name_;
  benchmark_function function_;
  std::vector<axis> axes_;
};

// One state of a benchmark while it runs: the axis values, the protocol, and what the benchmark
// declares. The CLI creates it; a benchmark receives it by reference.
class state {
public:
  using axis_value = kerntime::axis_value;

  // `name` is the state's identity, built once by the plan ("copy/bytes=1048576").
  state(std::string name, std::string benchmark_name,
        std::vector<std::pair<std::string, axis_value>> values, protocol p);

  // Axis values. Throw kerntime::invalid_argument naming the axis when it is missing or of
  // another kind. get_type returns the type axis value (the type's name).
  [[nodiscard]] std::int64_t get_int(std::string_view axis_name) const;
  [[nodiscard]] double get_float(std::string_view axis_name) const;
  [[nodiscard]] const std::string& get_string(std::string_view axis_name) const;
  [[nodiscard]] const std::string& get_type(std::string_view axis_name) const;

  // The protocol the work will be measured with; prepare get_protocol().input_sets input copies.
  [[nodiscard]] const protocol& get_protocol() const noexcept { return protocol_; }
  [[nodiscard]] int input_sets() const noexcept { return protocol_.input_sets; }
  // For a benchmark about the cache itself (hot L2): measure this state without the flush.
  void set_flush_l2(bool flush) noexcept { protocol_.flush_l2 = flush; }

  // Work per iteration, so reports show TFLOP/s and GB/s. Calls add up. With a precision, the
  // reports also show the share of that unit's peak (speed of light, docs/speed-of-light.md);
  // one state declares one precision.
  void add_flops(double flops);
  void add_flops(double flops, flop_precision precision);
  void add_bytes(double bytes_read_and_written);

  // Marks the state skipped (e.g. too large for this device); exec does nothing afterwards.
  void skip(std::string reason);
  [[nodiscard]] bool is_skipped() const noexcept { return skip_reason_.has_value(); }

  // Times `work` with kerntime::measure under the protocol (once per state). Inputs must be
  // prepared before: exec times every call of `work`. `stream` == nullptr: kerntime's own stream.
  void exec(const work_function& work, cudaStream_t stream = nullptr);
  // The same with the launch chosen by the benchmark, whatever the command line asked:
  // launch_mode::graph for work that runs as a CUDA graph in deployment, launch_mode::stream for
  // work that cannot be captured. The result records the launch used.
  void exec(const work_function& work, launch_mode launch, cudaStream_t stream = nullptr);

  [[nodiscard]] const std::string& benchmark_name() const noexcept { return benchmark_name_; }
  [[nodiscard]] const std::vector<std::pair<std::string, axis_value>>& values() const noexcept {
    return values_;
  }
  [[nodiscard]] const std::optional<std::string>& skip_reason() const noexcept {
    return skip_reason_;
  }
  [[nodiscard]] std::optional<double> flops() const noexcept { return flops_; }
  [[nodiscard]] std::optional<double> bytes() const noexcept { return bytes_; }
  [[nodiscard]] std::optional<flop_precision> flops_precision() const noexcept {
    return flops_precision_;
  }
  [[nodiscard]] const std::optional<measurement_result>& result() const noexcept { return result_; }
  // "copy/bytes=1048576": the benchmark name and each axis as name=value.
  [[nodiscard]] const std::string& name() const noexcept { return name_; }

private:
  [[nodiscard]] const axis_value& find(std::string_view axis_name) const;

  std::string name_;
  std::string benchmark_name_;
  std::vector<std::pair<std::string, axis_value>> values_;
  protocol protocol_;
  std::optional<double> flops_;
  std::optional<double> bytes_;
  std::optional<flop_precision> flops_precision_;
  std::optional<std::string> skip_reason_;
  std::optional<measurement_result> result_;
  bool executed_ = false;
};

// Every benchmark registered in this program, in registration order.
class benchmark_registry {
public:
  [[nodiscard]] static benchmark_registry& global();

  // Throws kerntime::invalid_argument when the name is taken.
  benchmark& add(std::string name, benchmark_function function);
  [[nodiscard]] const std::vector<std::unique_ptr<benchmark>>& benchmarks() const noexcept {
    return benchmarks_;
  }

private:
  std::vector<std::unique_ptr<benchmark>> benchmarks_;
};

// Registers in the global registry; what KERNTIME_BENCHMARK expands to.
benchmark& register_benchmark(std::string name, benchmark_function function);

// The name of T as the compiler spells it ("float", "__nv_bfloat16"), for type axes.
template <typename T> [[nodiscard]] std::string type_name() {
  std::string_view pretty = __PRETTY_FUNCTION__; // "... [with T = float; ...]"
  const auto start = pretty.find("T = ") + 4;
  const auto end = pretty.find_first_of(";]", start);
  return std::string(pretty.substr(start, end - start));
}

// One benchmark whose type axis `axis_name` runs `generic(state, std::type_identity<T>{})` for
// the T of each state, T one of Ts: `generic` is `[](kerntime::state& s, auto type) {...}` with
// `using T = typename decltype(type)::type;`.
template <typename... Ts, typename Generic>
benchmark& register_typed_benchmark(std::string name, std::string axis_name, Generic generic) {
  std::vector<std::string> names{type_name<Ts>()...};
  auto dispatch = [generic, axis_name, names](state& s) {
    const std::string& chosen = s.get_type(axis_name);
    std::size_t i = 0;
    bool ran = false;
    ((names[i++] == chosen && !ran ? (generic(s, std::type_identity<Ts>{}), ran = true) : false),
     ...);
    if (!ran) {
      throw invalid_argument("type axis '" + axis_name + "' has no type named '" + chosen + "'");
    }
  };
  return register_benchmark(std::move(name), dispatch).add_type_axis(axis_name, names);
}

// The kerntime command line over the global registry: what kerntime_main's main calls.
// Returns the exit code (0 ok, 1 a benchmark failed, 2 bad input, 3 no CUDA device, 4 an
// internal error of kerntime itself).
[[nodiscard]] int run_command_line(int argc, const char* const* argv);

} // namespace kerntime

#define KERNTIME_DETAIL_CONCAT_(a, b) a##b
#define KERNTIME_DETAIL_CONCAT(a, b) KERNTIME_DETAIL_CONCAT_(a, b)

// KERNTIME_BENCHMARK(fn).add_int_axis("N", {1024, 4096}); registers fn under its own name.
// (A declaration cannot be parenthesized, hence the NOLINT.)
// NOLINTBEGIN(bugprone-macro-parentheses)
#define KERNTIME_BENCHMARK(fn)                                                                     \
  [[maybe_unused]] static ::kerntime::benchmark& KERNTIME_DETAIL_CONCAT(                           \
      kerntime_benchmark_, __LINE__) = ::kerntime::register_benchmark(#fn, fn)

// KERNTIME_BENCHMARK_TEMPLATE(fn, "T", float, int): fn is `template <typename T> void fn(state&)`;
// one benchmark named fn with a type axis "T" whose values are the types' names.
#define KERNTIME_BENCHMARK_TEMPLATE(fn, axis_name, ...)                                            \
  [[maybe_unused]] static ::kerntime::benchmark& KERNTIME_DETAIL_CONCAT(kerntime_benchmark_,       \
                                                                        __LINE__) =                \
      ::kerntime::register_typed_benchmark<__VA_ARGS__>(                                           \
          #fn, axis_name,                                                                          \
          [](::kerntime::state& s, auto type) { fn<typename decltype(type)::type>(s); })
// NOLINTEND(bugprone-macro-parentheses)
