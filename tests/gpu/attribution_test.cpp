// Every GPU operation a benchmarked call launches is attributed to its iteration, whatever
// launched it: a memset, a user fill kernel, a second stream, a graph. Work from another thread
// cannot be attributed and must be reported, never dropped.

#include <kerntime/errors.hpp>
#include <kerntime/measure.hpp>

#include <chrono>
#include <thread>

#include "cuda_check.hpp"
#include "fill_kernel.hpp"
#include "gpu_test.hpp"
#include "graph_work_count.hpp"
#include "result_queries.hpp"
#include "spin_kernel.hpp"

namespace kerntime::gpu_tests {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t fill_count = std::size_t{4} << 20; // 16 MiB of ints

protocol cupti_protocol() {
  return {.warmup = 3, .trials = 3, .repeats = 20, .backend = backend_request::cupti};
}

class attribution : public gpu_test {};

TEST_F(attribution, a_memset_and_a_user_fill_kernel_in_the_call_are_both_counted) {
  const int sets = 3;
  device_buffer<int> buffers(fill_count * sets);
  protocol p = cupti_protocol();
  p.input_sets = sets;

  const measurement_result r = measure(
      [&](cudaStream_t stream, int set) {
        int* out = buffers.data() + fill_count * static_cast<std::size_t>(set);
        KT_CUDA_CHECK(cudaMemsetAsync(out, 0, fill_count * sizeof(int), stream));
        testkit::launch_fill(stream, out, 7, fill_count);
      },
      p);

  ASSERT_EQ(r.backend, timing_backend::cupti);
  ASSERT_EQ(r.kernels.size(), 2u) << describe_kernels(r);
  const kernel_summary* fill = find_row_named(r, "fill_kernel");
  ASSERT_NE(fill, nullptr) << describe_kernels(r);
  EXPECT_EQ(fill->kind, activity_kind::kernel);
  EXPECT_EQ(fill->calls_per_iteration, 1.0);
  const kernel_summary& other = &r.kernels[0] == fill ? r.kernels[1] : r.kernels[0];
  EXPECT_EQ(other.kind, activity_kind::memset) << describe_kernels(r);
  EXPECT_EQ(other.calls_per_iteration, 1.0);
  EXPECT_GT(other.mean_ns, 0.0);
  EXPECT_GT(fill->mean_ns, 0.0);
  // busy is the sum of the records; the breakdown rows are those same records.
  EXPECT_NEAR(sum_of_kernel_means_ns(r), r.busy.mean, 1e-6 * r.busy.mean);
  EXPECT_NEAR(sum_of_shares(r), 1.0, 1e-6);
  // One stream: the records are serial, so the span holds their sum.
  EXPECT_GE(r.span.median, r.busy.median);
}

TEST_F(attribution, kernels_on_two_streams_are_all_attributed_and_overlap_makes_busy_exceed_span) {
  cuda_stream side;
  cudaEvent_t fork = nullptr;
  cudaEvent_t join = nullptr;
  KT_CUDA_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  KT_CUDA_CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  const protocol p = cupti_protocol();

  const measurement_result r = measure(
      [&](cudaStream_t stream, int) {
        KT_CUDA_CHECK(cudaEventRecord(fork, stream));
        KT_CUDA_CHECK(cudaStreamWaitEvent(side.get(), fork));
        testkit::launch_spin(stream, 20us);
        testkit::launch_spin(side.get(), 20us);
        KT_CUDA_CHECK(cudaEventRecord(join, side.get()));
        KT_CUDA_CHECK(cudaStreamWaitEvent(stream, join));
      },
      p);
  KT_CUDA_CHECK(cudaEventDestroy(fork));
  KT_CUDA_CHECK(cudaEventDestroy(join));

  ASSERT_EQ(r.backend, timing_backend::cupti);
  EXPECT_EQ(records_per_iteration(r), 2.0) << describe_kernels(r);
  // Two one-thread kernels run side by side: busy counts both, the span only the overlap's extent.
  EXPECT_GT(r.busy.median, r.span.median);
  EXPECT_GT(r.busy.median, 1.5 * r.span.median) << "the two 20 us kernels did not overlap";
  EXPECT_GE(r.busy.median, 40'000.0);
}

TEST_F(attribution, every_kernel_node_of_a_graph_launched_in_the_call_is_attributed) {
  cuda_stream capture_stream;
  device_buffer<int> out(fill_count);
  const auto build_graph_work = [&](cudaStream_t stream) {
    testkit::launch_spin(stream, 3us);
    testkit::launch_fill(stream, out.data(), 1, fill_count);
    testkit::launch_spin(stream, 2us);
    testkit::launch_empty(stream);
  };
  KT_CUDA_CHECK(cudaStreamBeginCapture(capture_stream.get(), cudaStreamCaptureModeThreadLocal));
  build_graph_work(capture_stream.get());
  cudaGraph_t graph = nullptr;
  KT_CUDA_CHECK(cudaStreamEndCapture(capture_stream.get(), &graph));
  const testkit::graph_work_count nodes = testkit::count_graph_work(graph);
  cudaGraphExec_t graph_exec = nullptr;
  KT_CUDA_CHECK(cudaGraphInstantiate(&graph_exec, graph, 0));
  ASSERT_EQ(nodes.kernels, 4);

  const measurement_result r =
      measure([&](cudaStream_t stream, int) { KT_CUDA_CHECK(cudaGraphLaunch(graph_exec, stream)); },
              cupti_protocol());
  KT_CUDA_CHECK(cudaGraphExecDestroy(graph_exec));
  KT_CUDA_CHECK(cudaGraphDestroy(graph));

  ASSERT_EQ(r.backend, timing_backend::cupti);
  EXPECT_EQ(records_per_iteration(r), static_cast<double>(nodes.total())) << describe_kernels(r);
  EXPECT_NE(find_row_named(r, "fill_kernel"), nullptr) << describe_kernels(r);
  EXPECT_NEAR(sum_of_shares(r), 1.0, 1e-6);
  EXPECT_GE(r.busy.median, 5'000.0);
}

TEST_F(attribution, a_kernel_launched_from_another_thread_is_reported_as_untagged_work) {
  device_buffer<int> out(fill_count);
  const protocol p = cupti_protocol();
  try {
    const measurement_result r = measure(
        [&](cudaStream_t stream, int) {
          testkit::launch_spin(stream, 2us);
          std::thread helper([&] { testkit::launch_fill(stream, out.data(), 3, fill_count); });
          helper.join();
        },
        p);
    FAIL() << "measure returned (backend " << to_string(r.backend)
           << ") although a kernel came from a thread without the iteration's tag:\n"
           << describe_kernels(r);
  } catch (const measurement_invalid& e) {
    EXPECT_NE(lowercase(e.what()).find("untagged"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace kerntime::gpu_tests
