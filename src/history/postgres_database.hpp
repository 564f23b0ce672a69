#pragma once
// The history store on a PostgreSQL server, so that every CI runner of a team writes to one
// history. Its tables live in a schema of their own (`kerntime`) inside the database the URL
// names; writers serialise on an advisory lock for the length of one run's transaction.

#include <memory>
#include <string>

#include "history/history_database.hpp"

namespace kerntime::detail {

// Connects to `url` (a libpq URL: postgresql://USER@HOST:PORT/DATABASE?host=/socket/dir…).
// Throws kerntime::invalid_argument naming the server (never its password) and the fix.
[[nodiscard]] std::unique_ptr<history_database> open_postgres_database(const std::string& url);

// The URL with any password taken out, for messages and the store's name.
[[nodiscard]] std::string without_password(const std::string& url);

} // namespace kerntime::detail
