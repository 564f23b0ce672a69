#pragma once
// The history store in a SQLite file: embedded, zero set-up. Writers of several processes (CI
// runners on one machine) wait up to a minute for each other's transaction.

#include <filesystem>
#include <memory>

#include "history/history_database.hpp"

namespace kerntime::detail {

// Opens the SQLite file at `path`; `create` makes it where it does not exist, else a missing file
// is refused with the way to make one.
[[nodiscard]] std::unique_ptr<history_database>
open_sqlite_database(const std::filesystem::path& path, bool create);

} // namespace kerntime::detail
