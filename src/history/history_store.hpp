#pragma once
// The results history: every run added keeps its context (device, driver, CUDA, kerntime, host,
// date, commit, branch, labels) and, per state, the headline median with its interval, the
// per-trial medians, the on-GPU clock and the per-kernel medians. A SQLite file (zero set-up);
// one transaction per run, so a run is kept whole or not at all, and several writers at once
// (CI runners) wait for each other instead of failing. The samples stay in the result files.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kerntime/report.hpp"

struct sqlite3;

namespace kerntime::detail {

// The schema this kerntime writes (PRAGMA user_version); a store of a newer one is refused.
inline constexpr int history_schema_version = 1;

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
  std::string kernels_json;           // read by kernels_of, where a change needs them
};

// The kernels of a run of a state: name, median ns per iteration.
[[nodiscard]] std::vector<std::pair<std::string, double>> kernels_of(const series_point& p);

struct series_query {
  std::string state;
  std::string device; // the GPU model: a series never mixes two
  std::optional<std::string> branch;
};

class history_store {
public:
  // Opens the store at `path`; `create` makes it where it does not exist (history add), else a
  // missing store is refused. Throws kerntime::invalid_argument naming the path and the fix: not
  // a SQLite file, a store of a newer kerntime, not writable.
  history_store(const std::filesystem::path& path, bool create);
  ~history_store();
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

private:
  std::filesystem::path path_;
  sqlite3* db_ = nullptr;
};

} // namespace kerntime::detail
