#include "measure/launch_queue.hpp"

#include <chrono>
#include <mutex>

#include "kerntime/cuda.hpp"
#include "measure/trial_loop.hpp"

namespace kerntime::detail {
namespace {

// Far beyond any queue seen; the probe stops here if launches never block.
constexpr int max_probe_launches = 20'000;
// An empty launch takes a few microseconds of host time: 5 ms without one returning is a block.
constexpr std::chrono::milliseconds probe_stall{5};

std::optional<int> probe(cudaStream_t stream, blocking_kernel& blocker, stall_watchdog& watchdog) {
  // Lazy loading: the first launch of a kernel loads its module, which must not read as a block.
  blocker.block(stream, blocking_timeout);
  blocker.release();
  launch_empty_kernels(stream, 1);
  check_cuda(cudaStreamSynchronize(stream), "the launch queue probe");
  blocker.block(stream, blocking_timeout);
  watchdog.arm(blocker, probe_stall);
  std::optional<int> depth;
  {
    const release_at_scope_end release(blocker);
    for (int i = 0; i < max_probe_launches && !watchdog.released(); ++i) {
      launch_empty_kernels(stream, 1);
      watchdog.step();
    }
    depth = watchdog.disarm();
  }
  check_cuda(cudaStreamSynchronize(stream), "the launch queue probe");
  (void)blocker.take_timed_out();
  return depth;
}

} // namespace

std::optional<int> launch_queue_depth(cudaStream_t stream, blocking_kernel& blocker,
                                      stall_watchdog& watchdog) {
  static std::once_flag measured;
  static std::optional<int> depth;
  std::call_once(measured, [&] { depth = probe(stream, blocker, watchdog); });
  return depth;
}

} // namespace kerntime::detail
