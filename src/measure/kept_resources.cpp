#include "measure/kept_resources.hpp"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "cupti/cupti_scope.hpp"
#include "cupti/current_context.hpp"
#include "kerntime/cuda.hpp"

namespace kerntime::detail {
namespace {

// Where a kept resource lives: the device, and the context current on it (a resource of a context
// that was destroyed and made again, or of another context on the device, is never lent).
struct place {
  int device = 0;
  CUcontext context = nullptr;
  bool operator<(const place& other) const {
    return std::tie(device, context) < std::tie(other.device, other.context);
  }
};

place current_place() {
  place p;
  check_cuda(cudaGetDevice(&p.device), "reading the current device");
  // A thread with no context yet gets the device's primary one now (the measurement would make
  // it anyway), so that no resource is kept under "no context".
  check_cuda(cudaFree(nullptr), "making the device's context current");
  p.context = current_context();
  return p;
}

const place& place_of(const place& p) {
  return p;
}
template <typename Rest> const place& place_of(const std::pair<place, Rest>& key) {
  return key.first;
}

// Destroys `items` with their own context current (a blocking kernel synchronises its device
// before freeing its flags), then makes the caller's context current again.
template <typename Key, typename T>
void free_on_their_devices(std::map<Key, std::vector<std::unique_ptr<T>>>& items) noexcept {
  const CUcontext caller = current_context();
  for (auto& [key, list] : items) {
    const place& where = place_of(key);
    const bool current = where.context != nullptr ? make_current(where.context)
                                                  : cudaSetDevice(where.device) == cudaSuccess;
    if (!list.empty() && current) {
      list.clear();
    }
  }
  items.clear(); // any left: their context could not be made current; freed where we are
  (void)make_current(caller);
}

// The resources of one kind the current scope keeps, by key (place, and size for a flush), each
// lent to one measurement at a time. Never destroyed: a scope may end while the process exits.
template <typename T, typename Key> class resource_pool {
public:
  template <typename Make> borrowed<T> borrow(const Key& key, Make make) {
    std::unique_ptr<T> item;
    std::uint64_t generation = 0;
    {
      const std::lock_guard lock(mutex_);
      // The hook is registered in the same step that sees the scope open: a scope that ends
      // meanwhile cannot leave this pool's items kept outside every scope.
      if (!hook_registered_) {
        hook_registered_ = at_scope_end([this] { free_all(); });
      }
      if (hook_registered_ && cupti_scope_depth() > 0) {
        auto& free = idle_[key];
        if (!free.empty()) {
          item = std::move(free.back());
          free.pop_back();
        }
        generation = generation_;
      }
    }
    if (!item) {
      item = make();
      if (generation != 0) {
        const std::lock_guard lock(mutex_);
        made_in_scope_ += generation == generation_ ? 1 : 0;
      }
    }
    return borrowed<T>(item.release(), [this, key, generation](T* given_back) {
      take_back(key, generation, given_back);
    });
  }

  std::size_t kept() {
    const std::lock_guard lock(mutex_);
    return made_in_scope_;
  }

  // Frees the idle items now; the scope goes on, and its next borrow makes a new one.
  void release_idle() {
    std::map<Key, std::vector<std::unique_ptr<T>>> idle;
    {
      const std::lock_guard lock(mutex_);
      idle = std::exchange(idle_, {});
      for (const auto& entry : idle) {
        made_in_scope_ -= entry.second.size();
      }
    }
    free_on_their_devices(idle);
  }

private:
  // generation 0: borrowed outside a scope; else the scope it was kept for.
  void take_back(const Key& key, std::uint64_t generation, T* given_back) {
    std::unique_ptr<T> item(given_back);
    {
      const std::lock_guard lock(mutex_);
      if (generation != 0 && generation == generation_) {
        idle_[key].push_back(std::move(item));
        return;
      }
    }
    // Outside a scope, or its scope has ended: freed now, outside the lock.
  }

  void free_all() {
    std::map<Key, std::vector<std::unique_ptr<T>>> idle;
    {
      const std::lock_guard lock(mutex_);
      idle = std::exchange(idle_, {});
      made_in_scope_ = 0;
      ++generation_;
      hook_registered_ = false;
    }
    // Freed here, outside the lock; one still borrowed is freed when it is given back.
    free_on_their_devices(idle);
  }

  std::mutex mutex_;
  std::map<Key, std::vector<std::unique_ptr<T>>> idle_;
  std::size_t made_in_scope_ = 0; // kept now, borrowed or idle
  std::uint64_t generation_ = 1;
  bool hook_registered_ = false;
};

resource_pool<l2_flush, std::pair<place, std::size_t>>& flushes() {
  static auto* const pool =
      new resource_pool<l2_flush,
                        std::pair<place, std::size_t>>; // NOLINT(cppcoreguidelines-owning-memory)
  return *pool;
}

resource_pool<blocking_kernel, place>& blockers() {
  static auto* const pool =
      new resource_pool<blocking_kernel, place>; // NOLINT(cppcoreguidelines-owning-memory)
  return *pool;
}

} // namespace

borrowed<l2_flush> borrow_flush(std::size_t bytes) {
  return flushes().borrow({current_place(), bytes},
                          [bytes] { return std::make_unique<l2_flush>(bytes); });
}

borrowed<blocking_kernel> borrow_blocker() {
  borrowed<blocking_kernel> blocker =
      blockers().borrow(current_place(), [] { return std::make_unique<blocking_kernel>(); });
  (void)blocker->take_timed_out(); // a kept one may hold the flag of a trial that threw
  return blocker;
}

void release_kept_flushes() {
  flushes().release_idle();
}

namespace {
std::atomic<cudaStream_t> shared_stream{nullptr};
} // namespace

void use_one_stream(cudaStream_t stream) {
  shared_stream.store(stream);
}

cudaStream_t one_stream() {
  return shared_stream.load();
}

one_stream_scope::one_stream_scope() {
  use_one_stream(stream_.get());
}

one_stream_scope::~one_stream_scope() {
  use_one_stream(nullptr);
}

std::size_t kept_resource_count() {
  return flushes().kept() + blockers().kept();
}

} // namespace kerntime::detail
