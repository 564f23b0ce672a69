// A benchmark program of four states for the supervised run on a GPU (check_fault_suite.py):
// a fine state, one that writes through a wild pointer (a sticky CUDA error: the context is
// unusable after it), another fine one, and one whose kernel never ends. Linked with kerntime's
// own main, so it is the real `kerntime run`, supervisor and workers included.

#include <cstdint>

#include "fault_kernel.hpp"
#include "kerntime/benchmark.hpp"
#include "kerntime/cuda.hpp"
#include "spin_kernel.hpp"

namespace {

using namespace std::chrono_literals;

__global__ void never_ends() {
  kerntime::spin_for_ns(~std::uint64_t{0}); // about 584 years
}

void fine_before(kerntime::state& s) {
  s.exec([](cudaStream_t stream, int) { kerntime::testkit::launch_spin(stream, 20us); });
}

void wild_pointer(kerntime::state& s) {
  s.exec([](cudaStream_t stream, int) { kerntime::testkit::launch_illegal_address_write(stream); });
}

void fine_after(kerntime::state& s) {
  s.exec([](cudaStream_t stream, int) { kerntime::testkit::launch_spin(stream, 20us); });
}

void spins_forever(kerntime::state& s) {
  s.exec([](cudaStream_t stream, int) { never_ends<<<1, 1, 0, stream>>>(); });
}

KERNTIME_BENCHMARK(fine_before);
KERNTIME_BENCHMARK(wild_pointer);
KERNTIME_BENCHMARK(fine_after);
KERNTIME_BENCHMARK(spins_forever);

} // namespace
