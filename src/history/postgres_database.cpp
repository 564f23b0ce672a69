#include "history/postgres_database.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

#include "history/postgres_library.hpp"
#include "kerntime/errors.hpp"

namespace kerntime::detail {
namespace {

// The advisory lock every kerntime writer takes for its transaction ("kerntime" in ASCII).
constexpr const char* writer_lock = "SELECT pg_advisory_xact_lock(7738151096083899749)";
constexpr const char* schema_name = "kerntime";

class postgres_database;

// `?` placeholders, in order, as PostgreSQL's `$1, $2, …` (the store's SQL has no `?` in text).
std::string numbered_placeholders(std::string_view sql) {
  std::string out;
  int next = 1;
  for (const char c : sql) {
    if (c == '?') {
      out += fmt::format("${}", next++);
    } else {
      out += c;
    }
  }
  return out;
}

class postgres_statement final : public history_statement {
public:
  // `parameters`: how many the statement takes; one left unbound is NULL, as in SQLite.
  postgres_statement(postgres_database& db, std::string name, std::size_t parameters)
      : db_(db), name_(std::move(name)), parameters_(parameters) {}
  ~postgres_statement() override;
  postgres_statement(const postgres_statement&) = delete;
  postgres_statement& operator=(const postgres_statement&) = delete;

  history_statement& bind(int index, const std::string& text) override {
    slot(index) = {text, 0};
    return *this;
  }
  history_statement& bind(int index, std::int64_t value) override {
    slot(index) = {std::to_string(value), 0};
    return *this;
  }
  history_statement& bind(int index, std::optional<double> value) override {
    slot(index) = value && std::isfinite(*value) ? parameter{fmt::format("{}", *value), 0}
                                                 : parameter{std::nullopt, 0};
    return *this;
  }
  history_statement& bind_bytes(int index, const std::vector<unsigned char>& bytes) override {
    slot(index) = {std::string(bytes.begin(), bytes.end()), 1};
    return *this;
  }
  void reset() override;
  bool step() override;
  [[nodiscard]] std::string text(int column) const override {
    return libpq().value(row_, 0, column);
  }
  [[nodiscard]] std::int64_t integer(int column) const override {
    return std::strtoll(libpq().value(row_, 0, column), nullptr, 10);
  }
  [[nodiscard]] std::optional<double> number(int column) const override {
    if (libpq().is_null(row_, 0, column) != 0) {
      return std::nullopt;
    }
    return std::strtod(libpq().value(row_, 0, column), nullptr);
  }
  [[nodiscard]] std::vector<unsigned char> bytes(int column) const override {
    if (libpq().is_null(row_, 0, column) != 0) {
      return {};
    }
    std::size_t length = 0;
    unsigned char* raw = libpq().unescape_bytea(
        reinterpret_cast<const unsigned char*>(libpq().value(row_, 0, column)), &length);
    if (raw == nullptr) {
      throw invalid_argument("the history store: out of memory reading a stored result");
    }
    std::vector<unsigned char> out(raw, raw + length);
    libpq().free_memory(raw);
    return out;
  }

  // Reads what is left of this statement's results, so the connection can run another.
  void finish() noexcept;
  // Reads its remaining rows into memory, so the connection can run another statement while
  // this one is still being stepped through (a series read inside a pass over every series).
  void read_ahead();

private:
  struct parameter {
    std::optional<std::string> value;
    int format = 0; // 0 text, 1 binary (bytes)
  };
  parameter& slot(int index) {
    if (static_cast<std::size_t>(index) > parameters_.size()) {
      parameters_.resize(static_cast<std::size_t>(index));
    }
    return parameters_[static_cast<std::size_t>(index) - 1];
  }
  void clear_row() noexcept {
    if (row_ != nullptr) {
      libpq().clear(row_);
      row_ = nullptr;
    }
  }

  // The end of the rows: read the rest so the connection is free, and throw a failed end.
  void end(PGresult* last);

  postgres_database& db_;
  std::string name_;
  std::vector<parameter> parameters_;
  PGresult* row_ = nullptr;
  std::deque<PGresult*> read_ahead_; // rows read before they were stepped to
  bool sent_ = false;
  bool done_ = false;
};

class postgres_database final : public history_database {
public:
  explicit postgres_database(const std::string& url) : name_(without_password(url)) {
    const auto& pq = libpq();
    connection_ = pq.connect(url.c_str());
    if (connection_ == nullptr || pq.status(connection_) != CONNECTION_OK) {
      const std::string why = connection_ != nullptr ? trimmed(pq.error_message(connection_))
                                                     : std::string("out of memory");
      pq.finish(connection_);
      throw invalid_argument(fmt::format(
          "cannot connect to the PostgreSQL history store {} ({}); start the server or fix the "
          "URL (--store postgresql://USER@HOST:PORT/DATABASE)",
          name_, why));
    }
    // "schema already exists, skipping" and the like are not the user's business.
    pq.set_notice_processor(
        connection_, [](void*, const char*) {}, nullptr);
    // Writers wait for each other up to a minute, as in a SQLite store.
    execute(fmt::format("SET search_path TO {}; SET lock_timeout = '60s'", schema_name));
  }
  ~postgres_database() override { libpq().finish(connection_); }
  postgres_database(const postgres_database&) = delete;
  postgres_database& operator=(const postgres_database&) = delete;

  [[nodiscard]] kind dialect() const override { return kind::postgresql; }
  [[nodiscard]] const std::string& name() const override { return name_; }

  void execute(std::string_view sql) override {
    finish_active();
    PGresult* result = libpq().exec(connection_, std::string(sql).c_str());
    check(result);
    libpq().clear(result);
  }
  [[nodiscard]] std::unique_ptr<history_statement> prepare(std::string_view sql) override {
    finish_active();
    std::string name = fmt::format("kerntime_{}", ++statements_);
    PGresult* result =
        libpq().prepare(connection_, name.c_str(), numbered_placeholders(sql).c_str(), 0, nullptr);
    check(result);
    libpq().clear(result);
    return std::make_unique<postgres_statement>(
        *this, std::move(name), static_cast<std::size_t>(std::count(sql.begin(), sql.end(), '?')));
  }
  void begin_writing() override {
    execute("BEGIN");
    try {
      execute(writer_lock);
    } catch (...) {
      rollback();
      throw;
    }
  }
  void commit() override { execute("COMMIT"); }
  void rollback() noexcept override {
    if (active_ != nullptr) {
      std::exchange(active_, nullptr)->finish();
    }
    libpq().clear(libpq().exec(connection_, "ROLLBACK"));
  }
  [[nodiscard]] int schema_version() override {
    auto exists = prepare("SELECT to_regclass('kerntime.schema_version') IS NOT NULL");
    exists->step();
    if (exists->text(0) != "t") {
      return 0;
    }
    auto version = prepare("SELECT max(version) FROM kerntime.schema_version");
    return version->step() ? static_cast<int>(version->integer(0)) : 0;
  }
  void set_schema_version(int version) override {
    execute(fmt::format("CREATE TABLE IF NOT EXISTS kerntime.schema_version (version INTEGER NOT "
                        "NULL); DELETE FROM kerntime.schema_version; INSERT INTO "
                        "kerntime.schema_version VALUES ({})",
                        version));
  }

  // Throws the server's message for a failed result (and frees it).
  void check(PGresult* result) const {
    const auto status = libpq().result_status(result);
    if (result != nullptr && status != PGRES_FATAL_ERROR && status != PGRES_BAD_RESPONSE &&
        status != PGRES_NONFATAL_ERROR) {
      return;
    }
    std::string why = result != nullptr ? trimmed(libpq().result_error_message(result))
                                        : trimmed(libpq().error_message(connection_));
    const char* code =
        result != nullptr ? libpq().result_error_field(result, PG_DIAG_SQLSTATE) : nullptr;
    const std::string state = code != nullptr ? code : ""; // read before the result is freed
    libpq().clear(result);
    if (state == "55P03") { // lock_not_available
      why += "; another writer held the store for more than a minute";
    }
    throw invalid_argument(fmt::format("the history store {}: {}", name_, why));
  }

  [[nodiscard]] PGconn* connection() const { return connection_; }
  // The statement whose results the connection is reading; another must wait until they are read.
  void set_active(postgres_statement* statement) {
    if (active_ != statement) {
      finish_active();
    }
    active_ = statement;
  }
  void forget(const postgres_statement* statement) noexcept {
    if (active_ == statement) {
      active_ = nullptr;
    }
  }

private:
  // libpq's message on one line: its line breaks and tabs as single spaces.
  static std::string trimmed(const char* text) {
    std::string s;
    for (const char* c = text != nullptr ? text : ""; *c != '\0'; ++c) {
      const bool space = *c == '\n' || *c == '\t' || *c == ' ';
      if (!space || (!s.empty() && s.back() != ' ')) {
        s += space ? ' ' : *c;
      }
    }
    while (!s.empty() && s.back() == ' ') {
      s.pop_back();
    }
    return s;
  }
  void finish_active() {
    if (active_ != nullptr) {
      auto* statement = active_;
      active_ = nullptr;
      statement->read_ahead();
    }
  }

  std::string name_;
  PGconn* connection_ = nullptr;
  postgres_statement* active_ = nullptr;
  int statements_ = 0;
};

postgres_statement::~postgres_statement() {
  finish();
  db_.forget(this);
}

void postgres_statement::finish() noexcept {
  clear_row();
  for (PGresult* row : read_ahead_) {
    libpq().clear(row);
  }
  read_ahead_.clear();
  if (sent_ && !done_) {
    while (PGresult* rest = libpq().get_result(db_.connection())) {
      libpq().clear(rest);
    }
  }
  done_ = true;
}

void postgres_statement::read_ahead() {
  while (sent_ && !done_) {
    PGresult* result = libpq().get_result(db_.connection());
    if (result != nullptr && libpq().result_status(result) == PGRES_SINGLE_TUPLE) {
      read_ahead_.push_back(result);
    } else {
      end(result);
    }
  }
}

void postgres_statement::end(PGresult* last) {
  done_ = true;
  db_.forget(this);
  while (PGresult* rest = libpq().get_result(db_.connection())) {
    libpq().clear(rest);
  }
  db_.check(last);
  libpq().clear(last);
}

void postgres_statement::reset() {
  finish();
  db_.forget(this);
  parameters_.assign(parameters_.size(), parameter{});
  sent_ = false;
  done_ = false;
}

bool postgres_statement::step() {
  const auto& pq = libpq();
  clear_row();
  if (!read_ahead_.empty()) {
    row_ = read_ahead_.front();
    read_ahead_.pop_front();
    return true;
  }
  if (done_) {
    return false;
  }
  if (!sent_) {
    db_.set_active(this);
    std::vector<const char*> values;
    std::vector<int> lengths;
    std::vector<int> formats;
    for (const auto& p : parameters_) {
      values.push_back(p.value ? p.value->data() : nullptr);
      lengths.push_back(p.value ? static_cast<int>(p.value->size()) : 0);
      formats.push_back(p.format);
    }
    if (pq.send_query_prepared(db_.connection(), name_.c_str(), static_cast<int>(values.size()),
                               values.data(), lengths.data(), formats.data(), 0) == 0) {
      done_ = true;
      db_.forget(this);
      db_.check(nullptr);
    }
    pq.set_single_row_mode(db_.connection());
    sent_ = true;
  }
  PGresult* result = pq.get_result(db_.connection());
  if (result != nullptr && pq.result_status(result) == PGRES_SINGLE_TUPLE) {
    row_ = result;
    return true;
  }
  end(result);
  return false;
}

} // namespace

std::string without_password(const std::string& url) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) {
    return url;
  }
  const auto authority = scheme + 3;
  const auto end = std::min(url.find_first_of("/?", authority), url.size());
  const auto at = url.rfind('@', end);
  if (at == std::string::npos || at < authority) {
    return url;
  }
  const auto colon = url.find(':', authority);
  if (colon == std::string::npos || colon > at) {
    return url;
  }
  return url.substr(0, colon) + url.substr(at);
}

std::unique_ptr<history_database> open_postgres_database(const std::string& url) {
  return std::make_unique<postgres_database>(url);
}

} // namespace kerntime::detail
