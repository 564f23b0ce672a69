#pragma once
// How a trial is queued behind the blocking kernel: in chunks of iterations small enough that the
// launch queue never fills while the blocking kernel holds it (a full queue blocks the host's next
// launch, and the host could then never release the queue). Pure: docs/queue.md gives the rule,
// tests/measure/queue_plan_test.cpp checks it.

#include <optional>

namespace kerntime::detail {

struct queue_plan {
  // Iterations queued behind one blocking kernel; 0: none, the work waits for the host (it
  // synchronizes, or a single iteration could not be queued while the GPU was held).
  int chunk_iterations = 0;
  int stalls = 0; // times the host stopped queueing and the watchdog released the queue
};

// A chunk fills at most this share of the measured launch queue: CUPTI's instrumentation and
// launches that leave no GPU record (event records inside the work) take slots too.
inline constexpr int queue_share_denominator = 2;
// After this many stalls in one measurement the trials are queued without a blocking kernel.
inline constexpr int max_queue_stalls = 3;
// A trial is queued in at least this many chunks, so the host queues chunk k + 1 while the GPU
// runs chunk k: a trial then takes about max(host, GPU) time plus one chunk, not their sum. The
// GPU still runs each chunk back to back; between chunks it may wait at the next blocking kernel,
// never inside an iteration (flush, then work).
inline constexpr int pipelined_chunks = 4;

// The first plan: a quarter of the repeats per chunk (pipelined_chunks), fewer when the launches
// of an iteration (flush included) times the chunk exceed the share of the queue. `queue_depth` is
// the launches the queue took behind a blocking kernel at start-up (nullopt: not measured; the
// watchdog learns instead).
[[nodiscard]] queue_plan plan_queue(int repeats, std::optional<int> queue_depth,
                                    int launches_per_iteration);

// After the watchdog released a chunk at `queued_iterations` (iterations the host had queued when
// it stopped): a chunk of 3/4 of that, or no blocking kernel when not even one iteration could be
// queued (the work waits for the GPU) or after max_queue_stalls.
[[nodiscard]] queue_plan plan_after_stall(queue_plan plan, int queued_iterations);

} // namespace kerntime::detail
