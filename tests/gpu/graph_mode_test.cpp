// Graph mode on the GPU: a launch-bound op of several tiny kernels, captured once per input set
// and launched as a graph each iteration, has every kernel attributed to its iteration (the
// external-correlation tag pushed around cudaGraphLaunch covers the graph's nodes) and a span no
// longer than the same op launched kernel by kernel. CUDA events time the graph launch as well.
// Work that synchronizes or allocates is refused with a typed error naming why.

#include <kerntime/errors.hpp>
#include <kerntime/measure.hpp>

#include <cstdio>
#include <optional>

#include "cuda_check.hpp"
#include "fill_kernel.hpp"
#include "gpu_test.hpp"
#include "result_queries.hpp"
#include "spin_kernel.hpp"

namespace kerntime::gpu_tests {
namespace {

constexpr int empty_kernels = 6;
constexpr std::size_t fill_count = 1024;

protocol graph_protocol(backend_request backend) {
  return {
      .warmup = 3, .trials = 3, .repeats = 40, .backend = backend, .launch = launch_mode::graph};
}

class graph_mode : public gpu_test {
protected:
  // Allocated after the skip check: a machine without a GPU must skip, not fail in cudaMalloc.
  void SetUp() override {
    gpu_test::SetUp();
    if (!IsSkipped()) {
      buffers_.emplace(fill_count * 3);
    }
  }

  // Several tiny kernels: a fill of the input set's buffer and empty kernels.
  work_function tiny_kernels() {
    return [this](cudaStream_t stream, int set) {
      testkit::launch_fill(stream, buffers_->data() + fill_count * static_cast<std::size_t>(set), 7,
                           fill_count);
      for (int k = 0; k < empty_kernels; ++k) {
        testkit::launch_empty(stream);
      }
    };
  }

  std::optional<device_buffer<int>> buffers_;
};

TEST_F(graph_mode, every_kernel_of_a_graph_launch_is_attributed_to_its_iteration) {
  const measurement_result graph = measure(tiny_kernels(), graph_protocol(backend_request::cupti));
  protocol stream_protocol = graph_protocol(backend_request::cupti);
  stream_protocol.launch = launch_mode::stream;
  const measurement_result stream = measure(tiny_kernels(), stream_protocol);

  ASSERT_EQ(graph.backend, timing_backend::cupti);
  EXPECT_EQ(graph.protocol_used.launch, launch_mode::graph);
  EXPECT_EQ(graph.stats.count, 3u * 40u);
  ASSERT_EQ(graph.kernels.size(), 2u) << describe_kernels(graph);
  const kernel_summary* fill = find_row_named(graph, "fill_kernel");
  ASSERT_NE(fill, nullptr) << describe_kernels(graph);
  EXPECT_EQ(fill->calls_per_iteration, 1.0);
  const kernel_summary& empty = &graph.kernels[0] == fill ? graph.kernels[1] : graph.kernels[0];
  EXPECT_EQ(empty.calls_per_iteration, static_cast<double>(empty_kernels));
  EXPECT_EQ(records_per_iteration(graph), records_per_iteration(stream));
  for (const auto& warning : graph.warnings) {
    EXPECT_EQ(lowercase(warning).find("untagged"), std::string::npos) << warning;
  }
  // The graph launches the same kernels with less time between them on the GPU.
  std::printf("span median: stream %.3f us, graph %.3f us; busy median: stream %.3f us, graph "
              "%.3f us\n",
              stream.span.median / 1e3, graph.span.median / 1e3, stream.busy.median / 1e3,
              graph.busy.median / 1e3);
  EXPECT_LE(graph.span.median, stream.span.median);
}

TEST_F(graph_mode, events_time_the_graph_launch_when_cupti_is_not_used) {
  const measurement_result r = measure(tiny_kernels(), graph_protocol(backend_request::events));
  EXPECT_EQ(r.backend, timing_backend::events);
  EXPECT_EQ(r.protocol_used.launch, launch_mode::graph);
  EXPECT_EQ(r.stats.count, 3u * 40u);
  EXPECT_GT(r.latency_ns, 0.0);
  EXPECT_LT(r.latency_ns, 1e6) << "seven tiny kernels in a graph take microseconds, not a ms";
}

TEST_F(graph_mode, work_that_synchronizes_is_refused_with_the_reason_and_the_next_one_runs) {
  const auto synchronizing = [](cudaStream_t stream, int) {
    testkit::launch_empty(stream);
    (void)cudaStreamSynchronize(stream); // unchecked, as careless work does
  };
  try {
    (void)measure(synchronizing, graph_protocol(backend_request::automatic));
    ADD_FAILURE() << "a synchronizing work was captured";
  } catch (const work_not_capturable& e) {
    EXPECT_EQ(e.kind(), error_kind::not_capturable);
    EXPECT_FALSE(e.capture_error().empty());
    EXPECT_NE(std::string(e.what()).find("cannot be captured into a CUDA graph"), std::string::npos)
        << e.what();
    std::printf("refused: %s\n", e.what());
  }
  // The stream left capture: the same process measures the next work.
  const measurement_result next = measure(tiny_kernels(), graph_protocol(backend_request::cupti));
  EXPECT_GT(next.latency_ns, 0.0);
}

TEST_F(graph_mode, work_that_checks_its_calls_and_throws_is_refused_the_same_way) {
  const auto allocating = [](cudaStream_t stream, int) {
    testkit::launch_empty(stream);
    void* scratch = nullptr;
    KT_CUDA_CHECK(cudaMalloc(&scratch, 1 << 20));
    KT_CUDA_CHECK(cudaFree(scratch));
  };
  try {
    (void)measure(allocating, graph_protocol(backend_request::automatic));
    ADD_FAILURE() << "an allocating work was captured";
  } catch (const work_not_capturable& e) {
    std::printf("refused: %s\n", e.what());
  }
}

TEST_F(graph_mode, the_legacy_default_stream_cannot_be_captured_and_says_so) {
  try {
    (void)measure(tiny_kernels(), graph_protocol(backend_request::automatic), cudaStreamLegacy);
    ADD_FAILURE() << "the legacy stream was captured";
  } catch (const work_not_capturable& e) {
    EXPECT_NE(std::string(e.what()).find("legacy default stream"), std::string::npos) << e.what();
  }
}

} // namespace
} // namespace kerntime::gpu_tests
