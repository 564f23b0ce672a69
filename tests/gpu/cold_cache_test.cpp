// The L2 flush makes every iteration start cold: a 16 MiB copy, which fits in the H200's 60 MB
// L2, reads slower with flush_l2 on than off.

#include <kerntime/measure.hpp>

#include "cuda_check.hpp"
#include "gpu_test.hpp"

namespace kerntime::gpu_tests {
namespace {

class cold_cache : public gpu_test {};

TEST_F(cold_cache, a_16_mib_copy_reads_slower_with_the_flush_than_without) {
  constexpr std::size_t copy_bytes = std::size_t{16} << 20;
  constexpr int sets = 3;
  // The input sets are copies shifted by 256 bytes within one pool: every iteration sees other
  // addresses, yet all sets fit in L2 together, so without the flush the copy stays hot.
  constexpr std::size_t shift = 256;
  device_buffer<char> source(copy_bytes + shift * sets);
  device_buffer<char> destination(copy_bytes + shift * sets);
  KT_CUDA_CHECK(cudaMemset(source.data(), 0x5a, source.bytes()));
  const work_function copy = [&](cudaStream_t stream, int set) {
    const std::size_t offset = shift * static_cast<std::size_t>(set);
    KT_CUDA_CHECK(cudaMemcpyAsync(destination.data() + offset, source.data() + offset, copy_bytes,
                                  cudaMemcpyDeviceToDevice, stream));
  };
  protocol p;
  p.input_sets = sets;
  p.flush_l2 = true;
  const measurement_result cold = measure(copy, p);
  p.flush_l2 = false;
  const measurement_result hot = measure(copy, p);

  EXPECT_GT(cold.flush_bytes, 0u);
  EXPECT_EQ(hot.flush_bytes, 0u);
  EXPECT_EQ(cold.backend, hot.backend);
  // H200 reference: about 13.5 us cold against 8.4 us hot; demand a clear gap, not noise.
  EXPECT_GT(cold.latency_ns, 1.1 * hot.latency_ns)
      << "cold " << cold.latency_ns << " ns, hot " << hot.latency_ns << " ns";
  RecordProperty("cold_ns", std::to_string(cold.latency_ns));
  RecordProperty("hot_ns", std::to_string(hot.latency_ns));
}

} // namespace
} // namespace kerntime::gpu_tests
