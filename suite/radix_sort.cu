// CUB's radix sort of 32-bit keys (cub::DeviceRadixSort::SortKeys): a multi-kernel op (histogram,
// scan and several onesweep passes), so its per-kernel breakdown is the interesting part. The
// declared bytes are the minimum traffic (keys read once, written once): GB/s is an effective
// bandwidth, not what the passes moved.

#include <cub/device/device_radix_sort.cuh>

#include "cuda_check.hpp"
#include "elementwise.cuh"
#include "fill.cuh"
#include "kerntime/benchmark.hpp"

namespace kerntime::suite {
namespace {

void radix_sort(state& s) {
  const auto count = static_cast<std::size_t>(s.get_int("elements"));
  // The input keys stay unsorted: SortKeys writes to a separate output.
  auto keys_in = make_input_sets<std::uint32_t>(s.input_sets(), count);
  auto keys_out = make_input_sets<std::uint32_t>(s.input_sets(), count);
  for (int i = 0; i < s.input_sets(); ++i) {
    fill(keys_in[i].data(), count, static_cast<std::uint64_t>(i), any_uint{});
  }
  std::size_t temp_bytes = 0;
  check_cuda(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys_in[0].data(),
                                            keys_out[0].data(), static_cast<std::int64_t>(count)),
             "cub::DeviceRadixSort::SortKeys (temporary storage size)");
  device_buffer<std::byte> temp(temp_bytes);

  s.add_bytes(2.0 * static_cast<double>(count * sizeof(std::uint32_t)));
  s.exec([&](cudaStream_t stream, int input_set) {
    std::size_t bytes = temp.bytes();
    check_cuda(cub::DeviceRadixSort::SortKeys(temp.data(), bytes, keys_in[input_set].data(),
                                              keys_out[input_set].data(),
                                              static_cast<std::int64_t>(count), 0, 32, stream),
               "cub::DeviceRadixSort::SortKeys");
  });
}

} // namespace

KERNTIME_BENCHMARK(radix_sort).add_int_power_of_two_axis("elements", 16, 24, 4);

} // namespace kerntime::suite
