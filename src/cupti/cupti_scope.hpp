#pragma once
// Where CUPTI stays initialised between measurements (DESIGN, "When to finalize"). Inside a scope
// (a CLI worker for all its states, Python's `with kerntime.session():`, the pytest session) a
// measurement ends with disable -> flush -> unsubscribe and no cuptiFinalize, so the next one
// subscribes in ~0.01 ms instead of ~10 ms and its first launch costs ~1 ms instead of ~4 ms.
// The outermost scope's end finalizes, unless another client (torch.profiler's Kineto) holds a
// subscription by then: CUPTI is that client's, and finalizing would tear its state down.
// Scopes are process-wide and nest; outside every scope a measurement finalizes as before.

#include <functional>

#include "cupti/cupti_library.hpp"

namespace kerntime::detail {

void enter_cupti_scope();
// Leaves; the outermost scope's end runs the hooks (kept per-device resources are freed) and then
// finalizes what the measurements left initialised. `profiler_active`: the caller knows a
// profiler is tracing or armed (torch.profiler, seen from Python), and CUPTI is left to it even if
// it holds no subscription. Never throws.
void leave_cupti_scope(bool profiler_active = false) noexcept;
[[nodiscard]] int cupti_scope_depth() noexcept;

// After a measurement (or the counter pass) unsubscribed: finalize outside every scope, keep CUPTI
// initialised inside one. Returns true when it was kept.
bool release_cupti(const cupti_library& cupti) noexcept;

// A measurement has let go of CUPTI (its place is free again). When the last outermost scope's
// end found one holding it (left_to_measurement) after CUPTI had been kept, this finalizes now,
// as that end would have. Never throws.
void measurement_released() noexcept;

// What the end of the last outermost scope did with CUPTI.
enum class scope_end {
  nothing_kept,             // no measurement left CUPTI initialised inside the scope
  finalized,                // kept, and finalized at the end
  left_to_other_subscriber, // kept, but another client subscribed meanwhile: left as it is
  left_to_measurement,      // kept, but a measurement on another thread held CUPTI: it finalizes
  probe_failed,             // kept, but the probe's subscribe failed otherwise: left as it is
  left_to_profiler,         // kept, but the caller said a profiler was active: left to it
};
[[nodiscard]] scope_end last_scope_end() noexcept;
// "nothing_kept", "finalized", "left_to_other_subscriber", "left_to_measurement",
// "probe_failed", "left_to_profiler": as Python's session.last_end() says it.
[[nodiscard]] const char* name_of(scope_end end) noexcept;

// Runs once at the end of the current outermost scope, before CUPTI is finalized (the measure
// stage frees the flush buffer and the blocking kernel it kept for the scope). The scope is
// checked and the hook registered in one step; outside a scope nothing is registered and it
// returns false: the caller frees at once.
[[nodiscard]] bool at_scope_end(std::function<void()> hook);

} // namespace kerntime::detail
