// Libraries launch helper kernels the user never wrote (cuBLAS epilogues and workspace fills,
// every pass of a CUB radix sort). The breakdown lists each of them, checked against the count of
// operations the same call records into a CUDA graph.

#include <kerntime/measure.hpp>

#include <cub/device/device_radix_sort.cuh>

#include <cstdint>
#include <vector>

#include "bf16_gemm.hpp"
#include "cuda_check.hpp"
#include "gpu_test.hpp"
#include "graph_work_count.hpp"
#include "result_queries.hpp"

namespace kerntime::gpu_tests {
namespace {

constexpr int input_sets = 3;

protocol cupti_protocol() {
  return {.warmup = 5,
          .trials = 3,
          .repeats = 20,
          .input_sets = input_sets,
          .backend = backend_request::cupti};
}

// Random-looking, never zero: zeros can run faster than real data.
template <typename T, typename Make> void upload_pattern(const device_buffer<T>& to, Make make) {
  std::vector<T> host(to.size());
  std::uint32_t state = 12345u;
  for (T& value : host) {
    state = state * 1664525u + 1013904223u;
    value = make(state);
  }
  KT_CUDA_CHECK(cudaMemcpy(to.data(), host.data(), to.bytes(), cudaMemcpyHostToDevice));
}

void expect_breakdown_is_complete(const measurement_result& r, int captured_operations) {
  ASSERT_EQ(r.backend, timing_backend::cupti);
  ASSERT_FALSE(r.kernels.empty());
  for (const kernel_summary& k : r.kernels) {
    EXPECT_TRUE(is_integral(k.calls_per_iteration)) << k.name << ": " << k.calls_per_iteration;
    EXPECT_GE(k.calls_per_iteration, 1.0) << k.name;
  }
  EXPECT_NEAR(sum_of_shares(r), 1.0, 1e-6) << describe_kernels(r);
  EXPECT_EQ(records_per_iteration(r), static_cast<double>(captured_operations))
      << "the same call captured into a graph holds " << captured_operations
      << " operations; kerntime listed:\n"
      << describe_kernels(r);
}

class library_kernels : public gpu_test {};

TEST_F(library_kernels, a_cublas_bf16_gemm_lists_every_kernel_it_launches) {
  cuda_stream stream;
  const testkit::bf16_gemm gemm(2048, input_sets);
  gemm(stream.get(), 0); // let cuBLAS pick and load its kernels before the capture
  KT_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  const testkit::graph_work_count captured =
      testkit::count_captured_work(stream.get(), [&](cudaStream_t s) { gemm(s, 0); });

  const measurement_result r =
      measure([&](cudaStream_t s, int set) { gemm(s, set); }, cupti_protocol(), stream.get());

  expect_breakdown_is_complete(r, captured.total());
  RecordProperty("kernels", describe_kernels(r));
}

TEST_F(library_kernels, a_cub_radix_sort_lists_every_pass) {
  constexpr std::size_t keys = std::size_t{1} << 22;
  device_buffer<std::uint32_t> keys_in(keys * input_sets);
  device_buffer<std::uint32_t> keys_out(keys * input_sets);
  upload_pattern<std::uint32_t>(keys_in, [](std::uint32_t s) { return s; });
  std::size_t temp_bytes = 0;
  KT_CUDA_CHECK(
      cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys_in.data(), keys_out.data(), keys));
  device_buffer<std::byte> temp(temp_bytes);
  cuda_stream stream;

  const auto sort = [&](cudaStream_t s, int set) {
    const std::size_t offset = keys * static_cast<std::size_t>(set);
    std::size_t bytes = temp.bytes();
    KT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.data(), bytes, keys_in.data() + offset,
                                                 keys_out.data() + offset, keys, 0, 32, s));
  };
  const testkit::graph_work_count captured =
      testkit::count_captured_work(stream.get(), [&](cudaStream_t s) { sort(s, 0); });
  ASSERT_GE(captured.kernels, 2) << "a 32-bit radix sort runs several passes";

  const measurement_result r = measure(sort, cupti_protocol(), stream.get());

  expect_breakdown_is_complete(r, captured.total());
  EXPECT_GE(records_per_iteration(r), 2.0) << describe_kernels(r);
  RecordProperty("kernels", describe_kernels(r));
}

} // namespace
} // namespace kerntime::gpu_tests
