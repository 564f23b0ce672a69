#pragma once
// The results history: every run added keeps its context (device, driver, CUDA, kerntime, host,
// date, commit, branch, labels) and, per state, the headline median with its interval, the
// per-trial medians, the on-GPU clock, the per-kernel medians and the state's whole result
// without its trace, compressed (what a baseline from history is made of). A SQLite file or a
// PostgreSQL database (history_database.hpp); one transaction per run, so a run is kept whole or
// not at all, and several writers at once (CI runners) wait for each other instead of failing.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "kerntime/report.hpp"

#include "history/history_database.hpp"

namespace kerntime::detail {

// The schema this kerntime writes; a store of a newer one is refused, an older one migrated.
// 1: runs, states, series. 2: each state's result, compressed.
inline constexpr int history_schema_version = 2;

// What the caller says about a run beside its file.
struct run_labels {
  std::string commit;
  std::string branch;
  std::vector<std::pair<std::string, std::string>> labels; // KEY=VALUE
};

// One run of a state's series, oldest first.
struct series_point {
  std::int64_t run_id = 0;
  std::string date;
  std::string commit;
  std::string branch;
  double median_ns = 0;
  std::optional<double> low_ns; // the run's interval of the median, where it had one
  std::optional<double> high_ns;
  std::optional<double> sm_clock_mhz; // the mean on-GPU clock of its trials
};

// The mean on-GPU SM clock of the runs that measured one; nullopt where none did.
[[nodiscard]] std::optional<double> mean_sm_clock(std::span<const series_point> points);

struct series_query {
  std::string state;
  std::string device; // the GPU model: a series never mixes two
  std::optional<std::string> branch;
};

// A run in the store, as a baseline picks them.
struct stored_run {
  std::int64_t id = 0;
  std::string date;
  std::string commit;
  std::string branch;
  std::string device;
};

class history_store {
public:
  // Opens the store a --store value names (open_history_database); `create` makes a SQLite file
  // where none is and an empty database's tables (history add), else a store with no runs is
  // refused. Throws kerntime::invalid_argument naming the store and the fix: not a store, one of
  // a newer kerntime, not writable, a server that cannot be reached.
  history_store(const std::string& store, bool create);
  explicit history_store(std::unique_ptr<history_database> database, bool create);
  history_store(const history_store&) = delete;
  history_store& operator=(const history_store&) = delete;

  // Adds a run in one transaction; returns its id. Refuses a run already in the store (the same
  // date, host, command line and device) and a set without a device (nothing was measured).
  std::int64_t add(const result_set& set, const run_labels& labels, const std::string& source);

  [[nodiscard]] std::size_t run_count() const;
  // Every (device model, state) with at least one measured run, sorted.
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> series_names() const;
  [[nodiscard]] std::vector<series_point> series(const series_query& query) const;
  // Every series in one pass over the store (sorted by GPU model and state), for `changes`
  // over many states: one query instead of one per state.
  void each_series(const std::optional<std::string>& branch,
                   const std::function<void(const std::string& device, const std::string& state,
                                            std::vector<series_point> points)>& visit) const;

  // The kernels of a state in a run: name, median ns per iteration. Read where a change needs
  // them, not with every point of a series (a year of 2,600 states held them all: 0.3 GB).
  [[nodiscard]] std::vector<std::pair<std::string, double>>
  kernels_of(std::int64_t run_id, const std::string& state) const;

  // The newest `count` runs (by date) of a GPU model, and of a branch where one is given, oldest
  // first.
  [[nodiscard]] std::vector<stored_run> last_runs(const std::string& device,
                                                  const std::optional<std::string>& branch,
                                                  std::size_t count) const;
  // Every GPU model with a run of the branch (any branch where none is given).
  [[nodiscard]] std::vector<std::string> devices(const std::optional<std::string>& branch) const;
  // The states of a run as they were added (their results without the trace); nullopt for a run
  // whose results are not in the store (added by a kerntime that kept none, schema 1, or pruned).
  [[nodiscard]] std::optional<std::vector<benchmark_run>> results_of(std::int64_t run_id) const;

  [[nodiscard]] const std::string& name() const { return db_->name(); }

private:
  std::unique_ptr<history_database> db_;
};

} // namespace kerntime::detail
