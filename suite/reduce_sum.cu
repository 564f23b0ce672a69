// CUB's device-wide sum (cub::DeviceReduce::Sum) over a float or int array: a bandwidth-bound
// reduction of one or two kernels. Temporary storage is sized and allocated before timing.

#include <cub/device/device_reduce.cuh>

#include "cuda_check.hpp"
#include "elementwise.cuh"
#include "fill.cuh"
#include "kerntime/benchmark.hpp"

namespace kerntime::suite {
namespace {

template <typename T> auto input_values() {
  if constexpr (std::is_floating_point_v<T>) {
    return unit_float{};
  } else {
    return small_int{};
  }
}

template <typename T> void reduce_sum(state& s) {
  const auto count = static_cast<std::size_t>(s.get_int("elements"));
  auto inputs = make_input_sets<T>(s.input_sets(), count);
  auto sums = make_input_sets<T>(s.input_sets(), 1);
  for (int i = 0; i < s.input_sets(); ++i) {
    fill(inputs[i].data(), count, static_cast<std::uint64_t>(i), input_values<T>());
  }
  std::size_t temp_bytes = 0;
  check_cuda(cub::DeviceReduce::Sum(nullptr, temp_bytes, inputs[0].data(), sums[0].data(),
                                    static_cast<std::int64_t>(count)),
             "cub::DeviceReduce::Sum (temporary storage size)");
  device_buffer<std::byte> temp(temp_bytes);

  s.add_bytes(static_cast<double>((count + 1) * sizeof(T)));
  s.exec([&](cudaStream_t stream, int input_set) {
    std::size_t bytes = temp.bytes();
    check_cuda(cub::DeviceReduce::Sum(temp.data(), bytes, inputs[input_set].data(),
                                      sums[input_set].data(), static_cast<std::int64_t>(count),
                                      stream),
               "cub::DeviceReduce::Sum");
  });
}

} // namespace

KERNTIME_BENCHMARK_TEMPLATE(reduce_sum, "T", float, int)
    .add_int_power_of_two_axis("elements", 16, 28, 6);

} // namespace kerntime::suite
