// Device-to-device copy: the bandwidth benchmark, and the suite's cold-vs-hot L2 contrast.
// l2=cold follows the protocol (flushed before each iteration, input sets rotating);
// l2=hot turns the flush off for its state and re-copies one buffer, so source and destination
// sit in L2. `kerntime run --no-flush` makes every benchmark hot; l2=cold then skips itself.

#include <string>

#include "cuda_check.hpp"
#include "kerntime/benchmark.hpp"

namespace kerntime::suite {
namespace {

std::size_t l2_bytes() {
  int device = 0;
  int bytes = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device),
             "cudaDeviceGetAttribute(L2 size)");
  return static_cast<std::size_t>(bytes);
}

void copy(state& s) {
  const auto bytes = static_cast<std::size_t>(s.get_int("bytes"));
  const std::string& l2 = s.get_string("l2");
  if (l2 != "cold" && l2 != "hot") {
    throw invalid_argument("copy: axis l2 is cold or hot (got '" + l2 + "')");
  }
  const bool hot = l2 == "hot";
  if (hot && 2 * bytes > l2_bytes()) {
    s.skip("l2=hot needs source and destination (" + std::to_string(2 * bytes >> 20) +
           " MiB) to fit in the L2 (" + std::to_string(l2_bytes() >> 20) + " MiB)");
    return;
  }
  if (!hot && !s.get_protocol().flush_l2) {
    s.skip("l2=cold needs the L2 flush; run without --no-flush");
    return;
  }
  if (hot) {
    s.set_flush_l2(false);
  }
  const int sets = hot ? 1 : s.input_sets();
  auto source = make_input_sets<std::byte>(sets, bytes);
  auto destination = make_input_sets<std::byte>(sets, bytes);
  for (int i = 0; i < sets; ++i) {
    check_cuda(cudaMemset(source[i].data(), i + 1, bytes), "cudaMemset (input setup)");
  }
  check_cuda(cudaDeviceSynchronize(), "input setup");

  s.add_bytes(2.0 * static_cast<double>(bytes));
  s.exec([&](cudaStream_t stream, int input_set) {
    const int i = hot ? 0 : input_set;
    check_cuda(cudaMemcpyAsync(destination[i].data(), source[i].data(), bytes,
                               cudaMemcpyDeviceToDevice, stream),
               "cudaMemcpyAsync");
  });
}

} // namespace

KERNTIME_BENCHMARK(copy)
    .add_int_power_of_two_axis("bytes", 20, 28, 4)
    .add_string_axis("l2", {"cold", "hot"});

} // namespace kerntime::suite
