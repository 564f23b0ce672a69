#pragma once
// A scope of measurements: while a session lives, CUPTI stays initialised between measurements
// (each ends with disable -> flush -> unsubscribe, no cuptiFinalize) and the L2 flush buffer and
// blocking kernel are kept per device, so every measurement after the first skips 8-12 ms of fixed
// cost (H200, docs/queue.md). The outermost session's end frees what was kept and finalizes CUPTI,
// unless another client (torch.profiler) subscribed meanwhile: then CUPTI is left to it.
// Sessions are process-wide and nest. Outside one, measure() finalizes after each measurement.
//
// Between measurements inside a session, the process's own CUDA work runs with CUPTI initialised
// but nothing enabled: measured on an H200, that costs each launch ~0.8 us of host time and no
// GPU time (docs/queue.md, "Inside a session"). `kerntime run`'s workers hold one for all their
// states.

namespace kerntime {

class session {
public:
  session();
  ~session();
  session(const session&) = delete;
  session& operator=(const session&) = delete;
  session(session&&) = delete;
  session& operator=(session&&) = delete;

  // How many sessions are open in the process now.
  [[nodiscard]] static int depth() noexcept;
};

} // namespace kerntime
