#include "history/history_store.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <type_traits>
#include <variant>

#include "kerntime/errors.hpp"
#include "report/detail/host_facts.hpp"
#include "result/summarise.hpp"

namespace kerntime::detail {
namespace {

// Each schema version's statements, in order: a store at version v runs those after v. The two
// dialects keep the same tables and columns; only the types differ (PostgreSQL's REAL is 4 bytes).
constexpr const char* sqlite_migrations[] = {
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
    // 2: each state's result without its trace, zlib-compressed, and its size unpacked. A table
    // of its own, so that reading the series (changes) does not page through the results.
    "CREATE TABLE results (run_id INTEGER NOT NULL REFERENCES runs(id), name TEXT NOT NULL,"
    "  size INTEGER NOT NULL, result BLOB NOT NULL, PRIMARY KEY (run_id, name));",
};
constexpr const char* postgres_migrations[] = {
    "CREATE SCHEMA IF NOT EXISTS kerntime;"
    "CREATE TABLE runs ("
    "  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
    "  identity TEXT NOT NULL UNIQUE,"
    "  date TEXT NOT NULL, host TEXT NOT NULL, command_line TEXT NOT NULL,"
    "  kerntime_version TEXT NOT NULL, device_name TEXT NOT NULL, device_uuid TEXT NOT NULL,"
    "  driver_version BIGINT NOT NULL, runtime_version BIGINT NOT NULL,"
    "  commit_sha TEXT NOT NULL, branch TEXT NOT NULL, labels TEXT NOT NULL,"
    "  source TEXT NOT NULL, added TEXT NOT NULL);"
    "CREATE TABLE states ("
    "  run_id BIGINT NOT NULL REFERENCES runs(id),"
    "  name TEXT NOT NULL, benchmark TEXT NOT NULL, status TEXT NOT NULL,"
    "  median_ns DOUBLE PRECISION, low_ns DOUBLE PRECISION, high_ns DOUBLE PRECISION,"
    "  cv DOUBLE PRECISION, trial_medians TEXT, sm_clock_mhz DOUBLE PRECISION, kernels TEXT,"
    "  PRIMARY KEY (run_id, name));"
    "CREATE INDEX states_by_name ON states (name, run_id);"
    "CREATE INDEX runs_by_device ON runs (device_name, date);"
    "CREATE TABLE series (device_name TEXT NOT NULL, name TEXT NOT NULL,"
    "  PRIMARY KEY (device_name, name));",
    "CREATE TABLE results (run_id BIGINT NOT NULL REFERENCES runs(id), name TEXT NOT NULL,"
    "  size BIGINT NOT NULL, result BYTEA NOT NULL, PRIMARY KEY (run_id, name));",
};
static_assert(std::size(sqlite_migrations) == history_schema_version);
static_assert(std::size(postgres_migrations) == history_schema_version);

std::vector<unsigned char> compressed(const std::string& text) {
  std::vector<unsigned char> out(compressBound(text.size()));
  uLongf size = out.size();
  if (compress2(out.data(), &size, reinterpret_cast<const Bytef*>(text.data()), text.size(),
                Z_DEFAULT_COMPRESSION) != Z_OK) {
    throw invalid_argument("the history store: cannot compress a result (out of memory)");
  }
  out.resize(size);
  return out;
}

std::string uncompressed(const std::vector<unsigned char>& bytes, std::int64_t size,
                         std::int64_t run_id) {
  std::string out(static_cast<std::size_t>(size), '\0');
  uLongf length = out.size();
  if (size < 0 ||
      uncompress(reinterpret_cast<Bytef*>(out.data()), &length, bytes.data(), bytes.size()) !=
          Z_OK ||
      length != out.size()) {
    throw invalid_argument(
        fmt::format("the history store: run {} holds a damaged result; add that run again to a "
                    "new store",
                    run_id));
  }
  return out;
}

struct row_null {};
using row_value = std::variant<row_null, std::int64_t, std::string, std::optional<double>,
                               std::vector<unsigned char>>;

// Rows inserted many to a statement: on a server one round trip per statement, not per row
// (2,600 states on PostgreSQL: three round trips a state made ingest 1.7-2.3 s).
class row_inserter {
public:
  row_inserter(history_database& db, std::string_view into, std::size_t columns,
               std::string_view tail = "")
      : db_(db), into_(into), tail_(tail), columns_(columns) {}

  void add(std::vector<row_value> row) {
    for (auto& value : row) {
      pending_.push_back(std::move(value));
    }
    if (pending_.size() == rows_per_statement * columns_) {
      send();
    }
  }
  // Sends the rows not sent yet.
  void finish() {
    if (!pending_.empty()) {
      send();
    }
    full_.reset();
  }

private:
  // SQLite takes up to 32,766 values a statement, PostgreSQL 65,535: 11 columns × 100 rows.
  static constexpr std::size_t rows_per_statement = 100;

  [[nodiscard]] std::string sql(std::size_t rows) const {
    std::string one = "(";
    for (std::size_t c = 0; c < columns_; ++c) {
      one += c == 0 ? "?" : ",?";
    }
    one += ")";
    std::string text = into_;
    for (std::size_t r = 0; r < rows; ++r) {
      text += (r == 0 ? " " : ",") + one;
    }
    return text + tail_;
  }

  void send() {
    const std::size_t rows = pending_.size() / columns_;
    std::unique_ptr<history_statement> partial;
    history_statement* statement = nullptr;
    if (rows == rows_per_statement) {
      if (!full_) {
        full_ = db_.prepare(sql(rows));
      }
      statement = full_.get();
    } else {
      partial = db_.prepare(sql(rows));
      statement = partial.get();
    }
    statement->reset();
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      const int index = static_cast<int>(i) + 1;
      std::visit(
          [&](auto& value) {
            using type = std::decay_t<decltype(value)>;
            if constexpr (std::is_same_v<type, std::vector<unsigned char>>) {
              statement->bind_bytes(index, value);
            } else if constexpr (!std::is_same_v<type, row_null>) {
              statement->bind(index, value);
            }
          },
          pending_[i]);
    }
    statement->step();
    statement->reset(); // its result read: the connection is free for the next statement
    pending_.clear();
  }

  history_database& db_;
  std::string into_;
  std::string tail_;
  std::size_t columns_;
  std::vector<row_value> pending_;
  std::unique_ptr<history_statement> full_;
};

} // namespace

history_store::history_store(const std::string& store, bool create)
    : history_store(open_history_database(store, create), create) {}

history_store::history_store(std::unique_ptr<history_database> database, bool create)
    : db_(std::move(database)) {
  const std::string& name = db_->name();
  const auto refuse_newer = [&](int found) {
    if (found > history_schema_version) {
      throw invalid_argument(fmt::format(
          "the history store {} has schema version {}, written by a newer kerntime; this one "
          "reads version {} (use that kerntime, or a store of your own)",
          name, found, history_schema_version));
    }
  };
  try {
    int found = db_->schema_version();
    if (found == history_schema_version) {
      return;
    }
    refuse_newer(found);
    if (found == 0 && !create) {
      throw invalid_argument(fmt::format("no history store at {}; add runs first with `kerntime "
                                         "history add RUN.json --store {}`",
                                         name, name));
    }
    db_->begin_writing();
    try {
      found = db_->schema_version(); // another writer may have migrated it meanwhile
      refuse_newer(found);
      const auto& migrations = db_->dialect() == history_database::kind::sqlite
                                   ? sqlite_migrations
                                   : postgres_migrations;
      for (auto v = found; v < history_schema_version; ++v) {
        db_->execute(migrations[v]);
      }
      if (found < history_schema_version) {
        db_->set_schema_version(history_schema_version);
      }
      db_->commit();
    } catch (...) {
      db_->rollback();
      throw;
    }
  } catch (const invalid_argument& e) {
    const std::string why = e.what();
    if (why.find(name) != std::string::npos) {
      throw;
    }
    throw invalid_argument(fmt::format("cannot use {} as a history store ({}); give a store "
                                       "kerntime history add made, or a new path",
                                       name, why));
  }
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
  db_->begin_writing();
  try {
    {
      auto known = db_->prepare("SELECT id FROM runs WHERE identity = ?");
      known->bind(1, identity);
      if (known->step()) {
        throw invalid_argument(fmt::format(
            "{} is already in the history store {} (run {}, measured {} on {}): a run is added "
            "once",
            source, name(), known->integer(0), c.date, c.host_name));
      }
    }
    auto insert = db_->prepare("INSERT INTO runs (identity, date, host, command_line, "
                               "kerntime_version, device_name, device_uuid, driver_version, "
                               "runtime_version, commit_sha, branch, labels, source, added) "
                               "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id");
    insert->bind(1, identity)
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
        .bind(14, utc_now_iso8601());
    insert->step();
    const std::int64_t id = insert->integer(0);
    insert.reset(); // its rows read: the connection is free for the next statement
    row_inserter states(*db_,
                        "INSERT INTO states (run_id, name, benchmark, status, median_ns, low_ns, "
                        "high_ns, cv, trial_medians, sm_clock_mhz, kernels) VALUES",
                        11);
    row_inserter results(*db_, "INSERT INTO results (run_id, name, size, result) VALUES", 4);
    row_inserter listed(*db_, "INSERT INTO series (device_name, name) VALUES", 2,
                        " ON CONFLICT DO NOTHING");
    for (const auto& run : set.runs) {
      std::vector<row_value> row = {id, run.state_name, run.benchmark,
                                    std::string(to_string(run.status))};
      if (run.result) {
        const auto& r = *run.result;
        const auto& interval = r.stopping.median_interval;
        nlohmann::json kernels = nlohmann::json::array();
        for (const auto& k : r.kernels) {
          kernels.push_back({k.name, k.median_ns});
        }
        row.insert(row.end(),
                   {std::optional(r.latency_ns),
                    interval ? std::optional(interval->low) : std::nullopt,
                    interval ? std::optional(interval->high) : std::nullopt,
                    std::optional(r.stats.cv), nlohmann::json(r.trials_summary.medians).dump(),
                    mean_measured_sm_clock(r.trials), kernels.dump()});
      } else {
        row.insert(row.end(),
                   {std::optional<double>(), std::optional<double>(), std::optional<double>(),
                    std::optional<double>(), row_null{}, std::optional<double>(), row_null{}});
      }
      states.add(std::move(row));
      // The result is kept without its trace; a copy only where the file had one (add reads
      // files without it, run --store hands on the run as measured).
      std::optional<benchmark_run> untraced;
      if (run.result && !run.result->trace.empty()) {
        untraced = run;
        untraced->result->trace.clear();
      }
      const std::string text = run_to_json_line(untraced ? *untraced : run);
      results.add({id, run.state_name, static_cast<std::int64_t>(text.size()), compressed(text)});
      if (run.status == run_status::ok && run.result) {
        listed.add({device_name, run.state_name});
      }
    }
    states.finish();
    results.finish();
    listed.finish();
    db_->commit();
    return id;
  } catch (...) {
    db_->rollback();
    throw;
  }
}

std::size_t history_store::run_count() const {
  auto count = db_->prepare("SELECT count(*) FROM runs");
  count->step();
  return static_cast<std::size_t>(count->integer(0));
}

std::vector<std::pair<std::string, std::string>> history_store::series_names() const {
  auto names = db_->prepare("SELECT device_name, name FROM series ORDER BY device_name, name");
  std::vector<std::pair<std::string, std::string>> out;
  while (names->step()) {
    out.emplace_back(names->text(0), names->text(1));
  }
  return out;
}

namespace {

constexpr const char* point_columns =
    "r.id, r.date, r.commit_sha, r.branch, s.median_ns, s.low_ns, s.high_ns, s.sm_clock_mhz";

series_point point_of(const history_statement& row) {
  series_point p;
  p.run_id = row.integer(0);
  p.date = row.text(1);
  p.commit = row.text(2);
  p.branch = row.text(3);
  p.median_ns = row.number(4).value_or(0);
  p.low_ns = row.number(5);
  p.high_ns = row.number(6);
  p.sm_clock_mhz = row.number(7);
  return p;
}

} // namespace

std::vector<std::pair<std::string, double>>
history_store::kernels_of(std::int64_t run_id, const std::string& state) const {
  auto row = db_->prepare("SELECT kernels FROM states WHERE run_id = ? AND name = ?");
  row->bind(1, run_id).bind(2, state);
  std::vector<std::pair<std::string, double>> kernels;
  if (!row->step()) {
    return kernels;
  }
  for (const auto& k : nlohmann::json::parse(row->text(0), nullptr, false)) {
    if (k.is_array() && k.size() == 2 && k[0].is_string() && k[1].is_number()) {
      kernels.emplace_back(k[0].get<std::string>(), k[1].get<double>());
    }
  }
  return kernels;
}

std::optional<double> mean_sm_clock(std::span<const series_point> points) {
  double sum = 0;
  int count = 0;
  for (const auto& p : points) {
    if (p.sm_clock_mhz) {
      sum += *p.sm_clock_mhz;
      ++count;
    }
  }
  return count > 0 ? std::optional<double>(sum / count) : std::nullopt;
}

std::vector<series_point> history_store::series(const series_query& query) const {
  auto rows = db_->prepare(fmt::format("SELECT {} FROM states s JOIN runs r ON r.id = s.run_id "
                                       "WHERE s.name = ? AND r.device_name = ? AND s.status = "
                                       "'ok' AND (? = 0 OR r.branch = ?) ORDER BY r.date, r.id",
                                       point_columns));
  rows->bind(1, query.state).bind(2, query.device);
  rows->bind(3, static_cast<std::int64_t>(query.branch ? 1 : 0)).bind(4, query.branch.value_or(""));
  std::vector<series_point> out;
  while (rows->step()) {
    out.push_back(point_of(*rows));
  }
  return out;
}

void history_store::each_series(
    const std::optional<std::string>& branch,
    const std::function<void(const std::string& device, const std::string& state,
                             std::vector<series_point> points)>& visit) const {
  auto rows = db_->prepare(fmt::format("SELECT {}, r.device_name, s.name FROM states s JOIN runs "
                                       "r ON r.id = s.run_id WHERE s.status = 'ok' AND (? = 0 OR "
                                       "r.branch = ?) ORDER BY r.device_name, s.name, r.date, r.id",
                                       point_columns));
  rows->bind(1, static_cast<std::int64_t>(branch ? 1 : 0)).bind(2, branch.value_or(""));
  std::string device;
  std::string state;
  std::vector<series_point> points;
  while (rows->step()) {
    if (rows->text(8) != device || rows->text(9) != state) {
      if (!points.empty()) {
        visit(device, state, std::move(points));
      }
      points.clear();
      device = rows->text(8);
      state = rows->text(9);
    }
    points.push_back(point_of(*rows));
  }
  if (!points.empty()) {
    visit(device, state, std::move(points));
  }
}

std::vector<stored_run> history_store::last_runs(const std::string& device,
                                                 const std::optional<std::string>& branch,
                                                 std::size_t count) const {
  auto rows = db_->prepare("SELECT id, date, commit_sha, branch, device_name FROM runs WHERE "
                           "device_name = ? AND (? = 0 OR branch = ?) ORDER BY date DESC, id "
                           "DESC LIMIT ?");
  rows->bind(1, device)
      .bind(2, static_cast<std::int64_t>(branch ? 1 : 0))
      .bind(3, branch.value_or(""))
      .bind(4, static_cast<std::int64_t>(count));
  std::vector<stored_run> out;
  while (rows->step()) {
    out.push_back({rows->integer(0), rows->text(1), rows->text(2), rows->text(3), rows->text(4)});
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<std::string> history_store::devices(const std::optional<std::string>& branch) const {
  auto rows = db_->prepare("SELECT DISTINCT device_name FROM runs WHERE (? = 0 OR branch = ?) "
                           "ORDER BY device_name");
  rows->bind(1, static_cast<std::int64_t>(branch ? 1 : 0)).bind(2, branch.value_or(""));
  std::vector<std::string> out;
  while (rows->step()) {
    out.push_back(rows->text(0));
  }
  return out;
}

std::optional<std::vector<benchmark_run>> history_store::results_of(std::int64_t run_id) const {
  auto rows = db_->prepare("SELECT result, size FROM results WHERE run_id = ? ORDER BY name");
  rows->bind(1, run_id);
  std::vector<benchmark_run> out;
  while (rows->step()) {
    out.push_back(parse_run_json(uncompressed(rows->bytes(0), rows->integer(1), run_id),
                                 fmt::format("{} run {}", name(), run_id)));
  }
  if (out.empty()) { // added before the store kept results (schema 1)
    return std::nullopt;
  }
  return out;
}

} // namespace kerntime::detail
