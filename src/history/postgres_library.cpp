#include "history/postgres_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <string>
#include <variant>

#include "kerntime/errors.hpp"

namespace kerntime::detail {
namespace {

std::variant<postgres_library, std::string> load_libpq(const char* overridden) {
  const bool explicit_path = overridden != nullptr && *overridden != '\0';
  const std::string path = explicit_path ? std::string(overridden) : "libpq.so.5";
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return fmt::format("cannot load libpq, PostgreSQL's client library ({}: {}); install it "
                       "(Debian/Ubuntu: apt-get install libpq5) or set KERNTIME_LIBPQ_PATH to its "
                       "libpq.so, or keep the history in a SQLite file (--store history.sqlite)",
                       path, why != nullptr ? why : "not found");
  }
  postgres_library library;
  std::string missing;
  const auto bind = [&](const char* symbol, auto& out) {
    out = reinterpret_cast<std::remove_reference_t<decltype(out)>>(dlsym(handle, symbol));
    if (out == nullptr) {
      missing += missing.empty() ? symbol : fmt::format(", {}", symbol);
    }
  };
  bind("PQconnectdb", library.connect);
  bind("PQstatus", library.status);
  bind("PQerrorMessage", library.error_message);
  bind("PQfinish", library.finish);
  bind("PQsetNoticeProcessor", library.set_notice_processor);
  bind("PQexec", library.exec);
  bind("PQprepare", library.prepare);
  bind("PQsendQueryPrepared", library.send_query_prepared);
  bind("PQsetSingleRowMode", library.set_single_row_mode);
  bind("PQgetResult", library.get_result);
  bind("PQresultStatus", library.result_status);
  bind("PQresultErrorMessage", library.result_error_message);
  bind("PQresultErrorField", library.result_error_field);
  bind("PQntuples", library.row_count);
  bind("PQgetvalue", library.value);
  bind("PQgetlength", library.length);
  bind("PQgetisnull", library.is_null);
  bind("PQunescapeBytea", library.unescape_bytea);
  bind("PQfreemem", library.free_memory);
  bind("PQclear", library.clear);
  if (!missing.empty()) {
    return fmt::format("the libpq loaded from {} lacks {}; give libpq 10 or newer "
                       "(KERNTIME_LIBPQ_PATH)",
                       path, missing);
  }
  return library;
}

} // namespace

const postgres_library& libpq() {
  static const std::variant<postgres_library, std::string> loaded =
      load_libpq(std::getenv("KERNTIME_LIBPQ_PATH"));
  if (const auto* why = std::get_if<std::string>(&loaded)) {
    throw invalid_argument(*why);
  }
  return std::get<postgres_library>(loaded);
}

} // namespace kerntime::detail
