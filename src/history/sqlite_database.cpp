#include "history/sqlite_database.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cmath>

#include "kerntime/errors.hpp"

namespace kerntime::detail {
namespace {

class sqlite_statement final : public history_statement {
public:
  sqlite_statement(sqlite3* db, std::string_view sql, const std::string& name)
      : db_(db), name_(name) {
    if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) !=
        SQLITE_OK) {
      throw invalid_argument(fmt::format("the history store {}: {}", name_, sqlite3_errmsg(db)));
    }
  }
  ~sqlite_statement() override { sqlite3_finalize(stmt_); }
  sqlite_statement(const sqlite_statement&) = delete;
  sqlite_statement& operator=(const sqlite_statement&) = delete;

  history_statement& bind(int index, const std::string& text) override {
    sqlite3_bind_text(stmt_, index, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
  }
  history_statement& bind(int index, std::int64_t value) override {
    sqlite3_bind_int64(stmt_, index, value);
    return *this;
  }
  history_statement& bind(int index, std::optional<double> value) override {
    if (value && std::isfinite(*value)) {
      sqlite3_bind_double(stmt_, index, *value);
    } else {
      sqlite3_bind_null(stmt_, index);
    }
    return *this;
  }
  history_statement& bind_bytes(int index, const std::vector<unsigned char>& bytes) override {
    sqlite3_bind_blob(stmt_, index, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
    return *this;
  }
  void reset() override {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  bool step() override {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) {
      return true;
    }
    if (rc != SQLITE_DONE) {
      throw invalid_argument(fmt::format("the history store {}: {}", name_, sqlite3_errmsg(db_)));
    }
    return false;
  }
  [[nodiscard]] std::string text(int column) const override {
    const auto* p = sqlite3_column_text(stmt_, column);
    return p != nullptr ? reinterpret_cast<const char*>(p) : "";
  }
  [[nodiscard]] std::int64_t integer(int column) const override {
    return sqlite3_column_int64(stmt_, column);
  }
  [[nodiscard]] std::optional<double> number(int column) const override {
    return sqlite3_column_type(stmt_, column) == SQLITE_NULL
               ? std::nullopt
               : std::optional<double>(sqlite3_column_double(stmt_, column));
  }
  [[nodiscard]] std::vector<unsigned char> bytes(int column) const override {
    const auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(stmt_, column));
    return p != nullptr ? std::vector<unsigned char>(p, p + sqlite3_column_bytes(stmt_, column))
                        : std::vector<unsigned char>();
  }

private:
  sqlite3* db_;
  const std::string& name_;
  sqlite3_stmt* stmt_ = nullptr;
};

class sqlite_database final : public history_database {
public:
  sqlite_database(const std::filesystem::path& path, bool create) : name_(path.string()) {
    std::error_code ignored;
    if (!create && !std::filesystem::exists(path, ignored)) {
      throw invalid_argument(fmt::format("no history store at {}; add runs first with `kerntime "
                                         "history add RUN.json --store {}`",
                                         name_, name_));
    }
    const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
      const std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw invalid_argument(fmt::format("cannot open the history store {}: {}; give a writable "
                                         "path (--store FILE)",
                                         name_, why));
    }
    // Writers of other processes (CI runners) wait up to a minute for each other.
    sqlite3_busy_timeout(db_, 60'000);
  }
  ~sqlite_database() override { sqlite3_close(db_); }
  sqlite_database(const sqlite_database&) = delete;
  sqlite_database& operator=(const sqlite_database&) = delete;

  [[nodiscard]] kind dialect() const override { return kind::sqlite; }
  [[nodiscard]] const std::string& name() const override { return name_; }

  void execute(std::string_view sql) override {
    char* message = nullptr;
    const int rc = sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &message);
    if (rc != SQLITE_OK) {
      std::string why = message != nullptr ? message : sqlite3_errmsg(db_);
      sqlite3_free(message);
      if (rc == SQLITE_BUSY) {
        why += "; another writer held the store for more than a minute";
      }
      throw invalid_argument(fmt::format("the history store {}: {}", name_, why));
    }
  }
  [[nodiscard]] std::unique_ptr<history_statement> prepare(std::string_view sql) override {
    return std::make_unique<sqlite_statement>(db_, sql, name_);
  }
  // IMMEDIATE: the write lock is taken now, so two writers never both read and then both write.
  void begin_writing() override { execute("BEGIN IMMEDIATE"); }
  void commit() override { execute("COMMIT"); }
  void rollback() noexcept override {
    char* ignored = nullptr;
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, &ignored);
    sqlite3_free(ignored);
  }
  [[nodiscard]] int schema_version() override {
    sqlite_statement version(db_, "PRAGMA user_version", name_);
    version.step();
    return static_cast<int>(version.integer(0));
  }
  void set_schema_version(int version) override {
    execute(fmt::format("PRAGMA user_version = {}", version));
  }

private:
  std::string name_;
  sqlite3* db_ = nullptr;
};

} // namespace

std::unique_ptr<history_database> open_sqlite_database(const std::filesystem::path& path,
                                                       bool create) {
  return std::make_unique<sqlite_database>(path, create);
}

} // namespace kerntime::detail
