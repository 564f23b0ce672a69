#include "history/history_database.hpp"

#include "history/postgres_database.hpp"
#include "history/sqlite_database.hpp"

namespace kerntime::detail {

std::unique_ptr<history_database> open_history_database(const std::string& store, bool create) {
  if (store.rfind("postgresql://", 0) == 0 || store.rfind("postgres://", 0) == 0) {
    return open_postgres_database(store);
  }
  return open_sqlite_database(store.rfind("sqlite:", 0) == 0 ? store.substr(7) : store, create);
}

} // namespace kerntime::detail
