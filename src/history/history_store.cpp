#include "history/history_store.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <numeric>

#include "kerntime/errors.hpp"
#include "result/summarise.hpp"

namespace kerntime::detail {
namespace {

// Each schema version's statements, in order: a store at version v runs those after v.
constexpr const char* migrations[] = {
    // 1: runs and their states.
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY,"
    "  identity TEXT NOT NULL UNIQUE," // date | host | command line | device: a run added twice
    "  date TEXT NOT NULL, host TEXT NOT NULL, command_line TEXT NOT NULL,"
    "  kerntime_version TEXT NOT NULL, device_name TEXT NOT NULL, device_uuid TEXT NOT NULL,"
    "  driver_version INTEGER NOT NULL, runtime_version INTEGER NOT NULL,"
    "  commit_sha TEXT NOT NULL, branch TEXT NOT NULL, labels TEXT NOT NULL,"
    "  source TEXT NOT NULL, added TEXT NOT NULL);"
    "CREATE TABLE states ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id),"
    "  name TEXT NOT NULL, benchmark TEXT NOT NULL, status TEXT NOT NULL,"
    "  median_ns REAL, low_ns REAL, high_ns REAL, cv REAL,"
    "  trial_medians TEXT, sm_clock_mhz REAL, kernels TEXT,"
    "  PRIMARY KEY (run_id, name));"
    "CREATE INDEX states_by_name ON states (name, run_id);"
    "CREATE INDEX runs_by_device ON runs (device_name, date);"
    // Every (GPU model, state) measured at least once: the list of series without a scan.
    "CREATE TABLE series (device_name TEXT NOT NULL, name TEXT NOT NULL,"
    "  PRIMARY KEY (device_name, name)) WITHOUT ROWID;",
};
static_assert(std::size(migrations) == history_schema_version);

// A prepared statement, finalised on scope exit.
class statement {
public:
  statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) {
      throw invalid_argument(fmt::format("the history store: {}", sqlite3_errmsg(db)));
    }
  }
  ~statement() { sqlite3_finalize(stmt_); }
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;

  statement& bind(int i, const std::string& text) {
    sqlite3_bind_text(stmt_, i, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
  }
  statement& bind(int i, std::int64_t value) {
    sqlite3_bind_int64(stmt_, i, value);
    return *this;
  }
  statement& bind(int i, std::optional<double> value) {
    if (value && std::isfinite(*value)) {
      sqlite3_bind_double(stmt_, i, *value);
    } else {
      sqlite3_bind_null(stmt_, i);
    }
    return *this;
  }
  // Ready to run again with new values (none bound).
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  // True while a row is there to read.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) {
      return true;
    }
    if (rc != SQLITE_DONE) {
      throw invalid_argument(fmt::format("the history store: {}", sqlite3_errmsg(db_)));
    }
    return false;
  }
  [[nodiscard]] std::string text(int column) const {
    const auto* p = sqlite3_column_text(stmt_, column);
    return p != nullptr ? reinterpret_cast<const char*>(p) : "";
  }
  [[nodiscard]] std::int64_t integer(int column) const {
    return sqlite3_column_int64(stmt_, column);
  }
  [[nodiscard]] std::optional<double> number(int column) const {
    return sqlite3_column_type(stmt_, column) == SQLITE_NULL
               ? std::nullopt
               : std::optional<double>(sqlite3_column_double(stmt_, column));
  }

private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

void execute(sqlite3* db, const char* sql, const std::filesystem::path& path) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string why = message != nullptr ? message : sqlite3_errmsg(db);
    sqlite3_free(message);
    throw invalid_argument(fmt::format("the history store {}: {}", path.string(), why));
  }
}

std::string now_utc() {
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", now);
}

} // namespace

history_store::history_store(const std::filesystem::path& path, bool create) : path_(path) {
  std::error_code ignored;
  if (!create && !std::filesystem::exists(path, ignored)) {
    throw invalid_argument(fmt::format("no history store at {}; add runs first with `kerntime "
                                       "history add RUN.json --store {}`",
                                       path.string(), path.string()));
  }
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw invalid_argument(fmt::format("cannot open the history store {}: {}; give a writable "
                                       "path (--store FILE)",
                                       path.string(), why));
  }
  // Writers of other processes (CI runners) wait up to a minute for each other.
  sqlite3_busy_timeout(db_, 60'000);
  try {
    statement version(db_, "PRAGMA user_version");
    version.step();
    const auto found = version.integer(0);
    if (found > history_schema_version) {
      throw invalid_argument(fmt::format(
          "the history store {} has schema version {}, written by a newer kerntime; this one "
          "reads version {} (use that kerntime, or a store of your own)",
          path.string(), found, history_schema_version));
    }
    if (found < history_schema_version) {
      execute(db_, "BEGIN IMMEDIATE", path_);
      for (auto v = found; v < history_schema_version; ++v) {
        execute(db_, migrations[v], path_);
      }
      execute(db_, fmt::format("PRAGMA user_version = {}", history_schema_version).c_str(), path_);
      execute(db_, "COMMIT", path_);
    }
  } catch (const invalid_argument& e) {
    sqlite3_close(db_);
    const std::string why = e.what();
    if (why.find(path.string()) != std::string::npos) {
      throw;
    }
    throw invalid_argument(fmt::format("cannot use {} as a history store ({}); give a store "
                                       "kerntime history add made, or a new path",
                                       path.string(), why));
  }
}

history_store::~history_store() {
  sqlite3_close(db_);
}

std::int64_t history_store::add(const result_set& set, const run_labels& labels,
                                const std::string& source) {
  const auto& c = set.context;
  std::string device_name = c.device ? c.device->name : std::string();
  std::string uuid = c.telemetry.uuid;
  for (const auto& run : set.runs) {
    if (run.device) {
      device_name = device_name.empty() ? run.device->name : device_name;
      uuid = uuid.empty() ? run.device->uuid : uuid;
    }
  }
  if (device_name.empty()) {
    throw invalid_argument(fmt::format("{} names no GPU (nothing in it was measured); the history "
                                       "keeps measured runs",
                                       source));
  }
  nlohmann::json label_text = nlohmann::json::object();
  for (const auto& [key, value] : labels.labels) {
    label_text[key] = value;
  }
  const std::string identity =
      fmt::format("{}|{}|{}|{}", c.date, c.host_name, c.command_line, uuid);
  execute(db_, "BEGIN IMMEDIATE", path_);
  try {
    {
      statement known(db_, "SELECT id FROM runs WHERE identity = ?");
      known.bind(1, identity);
      if (known.step()) {
        throw invalid_argument(fmt::format(
            "{} is already in the history store {} (run {}, measured {} on {}): a run is added "
            "once",
            source, path_.string(), known.integer(0), c.date, c.host_name));
      }
    }
    statement insert(db_, "INSERT INTO runs (identity, date, host, command_line, "
                          "kerntime_version, device_name, device_uuid, driver_version, "
                          "runtime_version, commit_sha, branch, labels, source, added) "
                          "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    insert.bind(1, identity)
        .bind(2, c.date)
        .bind(3, c.host_name)
        .bind(4, c.command_line)
        .bind(5, c.kerntime_version)
        .bind(6, device_name)
        .bind(7, uuid)
        .bind(8, static_cast<std::int64_t>(c.device ? c.device->driver_version : 0))
        .bind(9, static_cast<std::int64_t>(c.device ? c.device->runtime_version : 0))
        .bind(10, labels.commit)
        .bind(11, labels.branch)
        .bind(12, label_text.dump())
        .bind(13, source)
        .bind(14, now_utc());
    insert.step();
    const std::int64_t id = sqlite3_last_insert_rowid(db_);
    statement row(db_, "INSERT INTO states (run_id, name, benchmark, status, median_ns, "
                       "low_ns, high_ns, cv, trial_medians, sm_clock_mhz, kernels) "
                       "VALUES (?,?,?,?,?,?,?,?,?,?,?)");
    statement listed(db_, "INSERT OR IGNORE INTO series (device_name, name) VALUES (?, ?)");
    for (const auto& run : set.runs) {
      row.reset();
      row.bind(1, id).bind(2, run.state_name).bind(3, run.benchmark);
      row.bind(4, std::string(to_string(run.status)));
      if (run.result) {
        const auto& r = *run.result;
        const auto& interval = r.stopping.median_interval;
        nlohmann::json kernels = nlohmann::json::array();
        for (const auto& k : r.kernels) {
          kernels.push_back({k.name, k.median_ns});
        }
        row.bind(5, std::optional(r.latency_ns))
            .bind(6, interval ? std::optional(interval->low) : std::nullopt)
            .bind(7, interval ? std::optional(interval->high) : std::nullopt)
            .bind(8, std::optional(r.stats.cv))
            .bind(9, nlohmann::json(r.trials_summary.medians).dump())
            .bind(10, mean_measured_sm_clock(r.trials))
            .bind(11, kernels.dump());
      }
      row.step();
      if (run.status == run_status::ok && run.result) {
        listed.reset();
        listed.bind(1, device_name).bind(2, run.state_name);
        listed.step();
      }
    }
    execute(db_, "COMMIT", path_);
    return id;
  } catch (...) {
    char* ignored = nullptr;
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, &ignored);
    sqlite3_free(ignored);
    throw;
  }
}

std::size_t history_store::run_count() const {
  statement count(db_, "SELECT count(*) FROM runs");
  count.step();
  return static_cast<std::size_t>(count.integer(0));
}

std::vector<std::pair<std::string, std::string>> history_store::series_names() const {
  statement names(db_, "SELECT device_name, name FROM series ORDER BY device_name, name");
  std::vector<std::pair<std::string, std::string>> out;
  while (names.step()) {
    out.emplace_back(names.text(0), names.text(1));
  }
  return out;
}

namespace {

constexpr const char* point_columns =
    "r.id, r.date, r.commit_sha, r.branch, s.median_ns, s.low_ns, "
    "s.high_ns, s.sm_clock_mhz, s.kernels";

series_point point_of(const statement& row) {
  series_point p;
  p.run_id = row.integer(0);
  p.date = row.text(1);
  p.commit = row.text(2);
  p.branch = row.text(3);
  p.median_ns = row.number(4).value_or(0);
  p.low_ns = row.number(5);
  p.high_ns = row.number(6);
  p.sm_clock_mhz = row.number(7);
  p.kernels_json = row.text(8);
  return p;
}

} // namespace

std::vector<std::pair<std::string, double>> kernels_of(const series_point& p) {
  std::vector<std::pair<std::string, double>> kernels;
  for (const auto& k : nlohmann::json::parse(p.kernels_json, nullptr, false)) {
    if (k.is_array() && k.size() == 2 && k[0].is_string() && k[1].is_number()) {
      kernels.emplace_back(k[0].get<std::string>(), k[1].get<double>());
    }
  }
  return kernels;
}

std::vector<series_point> history_store::series(const series_query& query) const {
  statement rows(db_, fmt::format("SELECT {} FROM states s JOIN runs r ON r.id = s.run_id WHERE "
                                  "s.name = ? AND r.device_name = ? AND s.status = 'ok' AND "
                                  "(? = 0 OR r.branch = ?) ORDER BY r.date, r.id",
                                  point_columns)
                          .c_str());
  rows.bind(1, query.state).bind(2, query.device);
  rows.bind(3, static_cast<std::int64_t>(query.branch ? 1 : 0)).bind(4, query.branch.value_or(""));
  std::vector<series_point> out;
  while (rows.step()) {
    out.push_back(point_of(rows));
  }
  return out;
}

void history_store::each_series(
    const std::optional<std::string>& branch,
    const std::function<void(const std::string& device, const std::string& state,
                             std::vector<series_point> points)>& visit) const {
  statement rows(db_, fmt::format("SELECT {}, r.device_name, s.name FROM states s JOIN runs r ON "
                                  "r.id = s.run_id WHERE s.status = 'ok' AND (? = 0 OR "
                                  "r.branch = ?) ORDER BY r.device_name, s.name, r.date, r.id",
                                  point_columns)
                          .c_str());
  rows.bind(1, static_cast<std::int64_t>(branch ? 1 : 0)).bind(2, branch.value_or(""));
  std::string device;
  std::string state;
  std::vector<series_point> points;
  while (rows.step()) {
    if (rows.text(9) != device || rows.text(10) != state) {
      if (!points.empty()) {
        visit(device, state, std::move(points));
      }
      points.clear();
      device = rows.text(9);
      state = rows.text(10);
    }
    points.push_back(point_of(rows));
  }
  if (!points.empty()) {
    visit(device, state, std::move(points));
  }
}

} // namespace kerntime::detail
