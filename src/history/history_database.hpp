#pragma once
// The database under the history store, as the store uses it: statements with `?` placeholders
// bound in order, rows read column by column, a writer's transaction, the schema's version. Two
// kinds: a SQLite file (zero set-up, sqlite_database.hpp) and a PostgreSQL server that CI runners
// share (postgres_database.hpp). The store's logic is written once over this.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kerntime::detail {

// A prepared statement: bind values (1-based, in the order the `?` appear), then step through its
// rows; reset() to run it again with new values.
class history_statement {
public:
  virtual ~history_statement() = default;
  virtual history_statement& bind(int index, const std::string& text) = 0;
  virtual history_statement& bind(int index, std::int64_t value) = 0;
  // A missing or non-finite value is stored as NULL.
  virtual history_statement& bind(int index, std::optional<double> value) = 0;
  virtual history_statement& bind_bytes(int index, const std::vector<unsigned char>& bytes) = 0;
  virtual void reset() = 0;
  // True while a row is there to read; throws kerntime::invalid_argument on a database error.
  virtual bool step() = 0;
  [[nodiscard]] virtual std::string text(int column) const = 0;
  [[nodiscard]] virtual std::int64_t integer(int column) const = 0;
  [[nodiscard]] virtual std::optional<double> number(int column) const = 0;
  [[nodiscard]] virtual std::vector<unsigned char> bytes(int column) const = 0;
};

class history_database {
public:
  enum class kind { sqlite, postgresql };
  virtual ~history_database() = default;
  [[nodiscard]] virtual kind dialect() const = 0;
  // The store as the user named it (a path, or the URL without its password), for messages.
  [[nodiscard]] virtual const std::string& name() const = 0;
  virtual void execute(std::string_view sql) = 0;
  [[nodiscard]] virtual std::unique_ptr<history_statement> prepare(std::string_view sql) = 0;
  // Starts the one writer's transaction: other writers wait until it commits or rolls back.
  virtual void begin_writing() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
  // 0 for an empty store. Read inside begin_writing() to migrate without a race.
  [[nodiscard]] virtual int schema_version() = 0;
  virtual void set_schema_version(int version) = 0;
};

// Opens the store a --store value names: `postgresql://…` or `postgres://…` (a libpq URL) is a
// PostgreSQL database, `sqlite:PATH` or any other value a SQLite file. `create` makes a SQLite
// file where none is; a PostgreSQL database must exist (the store's tables are made in it).
// Throws kerntime::invalid_argument naming the store and the fix.
[[nodiscard]] std::unique_ptr<history_database> open_history_database(const std::string& store,
                                                                      bool create);

} // namespace kerntime::detail
