#pragma once
// libpq, loaded when a --store names a PostgreSQL server and not before: the kerntime command
// starts without it (as without cuBLAS) and runs on GPU machines that have no libpq at all.

#include <libpq-fe.h>

namespace kerntime::detail {

// The libpq entry points the PostgreSQL store calls.
struct postgres_library {
  decltype(&PQconnectdb) connect = nullptr;
  decltype(&PQstatus) status = nullptr;
  decltype(&PQerrorMessage) error_message = nullptr;
  decltype(&PQfinish) finish = nullptr;
  decltype(&PQsetNoticeProcessor) set_notice_processor = nullptr;
  decltype(&PQexec) exec = nullptr;
  decltype(&PQprepare) prepare = nullptr;
  decltype(&PQsendQueryPrepared) send_query_prepared = nullptr;
  decltype(&PQsetSingleRowMode) set_single_row_mode = nullptr;
  decltype(&PQgetResult) get_result = nullptr;
  decltype(&PQresultStatus) result_status = nullptr;
  decltype(&PQresultErrorMessage) result_error_message = nullptr;
  decltype(&PQresultErrorField) result_error_field = nullptr;
  decltype(&PQntuples) row_count = nullptr;
  decltype(&PQgetvalue) value = nullptr;
  decltype(&PQgetlength) length = nullptr;
  decltype(&PQgetisnull) is_null = nullptr;
  decltype(&PQunescapeBytea) unescape_bytea = nullptr;
  decltype(&PQfreemem) free_memory = nullptr;
  decltype(&PQclear) clear = nullptr;
};

// libpq.so.5 (KERNTIME_LIBPQ_PATH overrides), loaded on the first call; throws
// kerntime::invalid_argument saying what to install where it cannot be loaded.
[[nodiscard]] const postgres_library& libpq();

} // namespace kerntime::detail
