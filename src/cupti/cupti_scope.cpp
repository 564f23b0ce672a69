#include "cupti/cupti_scope.hpp"

#include <mutex>
#include <utility>
#include <vector>

#include "cupti/cupti_session.hpp"

namespace kerntime::detail {
namespace {

struct scope_state {
  std::mutex mutex;
  int depth = 0;
  const cupti_library* kept = nullptr; // CUPTI a measurement left initialised, not finalized
  // The outermost end found a measurement holding CUPTI: that one finalizes once it lets go.
  bool finalize_when_released = false;
  std::vector<std::function<void()>> hooks;
  scope_end last_end = scope_end::nothing_kept;
};

// Never destroyed: a scope may end (and CUPTI call back) while the process exits.
scope_state& state() {
  static auto* const s = new scope_state; // NOLINT(cppcoreguidelines-owning-memory)
  return *s;
}

// At the outermost scope's end: finalize only when nobody holds a subscription. A subscribe of
// our own answers that (0.01 ms while CUPTI is initialised); it is dropped again before finalizing.
// All of it while no measurement can attach: one in flight on another thread finalizes itself
// when it detaches, outside every scope by then.
scope_end finalize_if_free(const cupti_library& cupti) noexcept {
  scope_end end = scope_end::left_to_measurement;
  (void)while_no_measurement([&] {
    CUpti_SubscriberHandle probe = nullptr;
    const CUptiResult subscribed = cupti.subscribe(&probe, ignore_cupti_callback, nullptr);
    if (subscribed == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
      end = scope_end::left_to_other_subscriber;
      return;
    }
    if (subscribed != CUPTI_SUCCESS) {
      end = scope_end::probe_failed; // not knowing who holds CUPTI, it is left as it is
      return;
    }
    (void)cupti.unsubscribe(probe);
    (void)cupti.finalize();
    end = scope_end::finalized;
  });
  return end;
}

} // namespace

void enter_cupti_scope() {
  const std::lock_guard lock(state().mutex);
  ++state().depth;
}

void leave_cupti_scope(bool profiler_active) noexcept {
  std::vector<std::function<void()>> hooks;
  const cupti_library* kept = nullptr;
  {
    const std::lock_guard lock(state().mutex);
    if (state().depth == 0 || --state().depth > 0) {
      return;
    }
    hooks = std::exchange(state().hooks, {});
    kept = std::exchange(state().kept, nullptr);
  }
  for (const auto& hook : hooks) {
    try {
      hook();
    } catch (...) { // NOLINT(bugprone-empty-catch): freeing at the end reports nothing to anyone
    }
  }
  const scope_end end = kept == nullptr   ? scope_end::nothing_kept
                        : profiler_active ? scope_end::left_to_profiler
                                          : finalize_if_free(*kept);
  const std::lock_guard lock(state().mutex);
  state().last_end = end;
  if (end == scope_end::left_to_measurement && state().depth == 0) {
    // It may have kept CUPTI just before this end; it finalizes when it lets go of it.
    state().kept = kept;
    state().finalize_when_released = true;
  }
}

void measurement_released() noexcept {
  const cupti_library* kept = nullptr;
  {
    const std::lock_guard lock(state().mutex);
    if (!state().finalize_when_released || state().depth > 0) {
      return;
    }
    state().finalize_when_released = false;
    kept = std::exchange(state().kept, nullptr);
  }
  if (kept != nullptr) {
    const scope_end end = finalize_if_free(*kept);
    const std::lock_guard lock(state().mutex);
    state().last_end = end;
  }
}

int cupti_scope_depth() noexcept {
  const std::lock_guard lock(state().mutex);
  return state().depth;
}

bool release_cupti(const cupti_library& cupti) noexcept {
  {
    const std::lock_guard lock(state().mutex);
    if (state().depth > 0) {
      state().kept = &cupti;
      return true;
    }
    // Finalized here: nothing is left for measurement_released to do.
    state().finalize_when_released = false;
    state().kept = nullptr;
  }
  (void)cupti.finalize();
  return false;
}

scope_end last_scope_end() noexcept {
  const std::lock_guard lock(state().mutex);
  return state().last_end;
}

const char* name_of(scope_end end) noexcept {
  switch (end) {
  case scope_end::finalized:
    return "finalized";
  case scope_end::left_to_other_subscriber:
    return "left_to_other_subscriber";
  case scope_end::left_to_measurement:
    return "left_to_measurement";
  case scope_end::probe_failed:
    return "probe_failed";
  case scope_end::left_to_profiler:
    return "left_to_profiler";
  case scope_end::nothing_kept:
    break;
  }
  return "nothing_kept";
}

bool at_scope_end(std::function<void()> hook) {
  const std::lock_guard lock(state().mutex);
  if (state().depth == 0) {
    return false;
  }
  state().hooks.push_back(std::move(hook));
  return true;
}

} // namespace kerntime::detail
