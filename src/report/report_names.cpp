// The names of the report stage's enums (kerntime/report.hpp), one table each read both ways
// (result/name_table.hpp): a run's status and the JUnit flavour.

#include <optional>
#include <string_view>

#include "kerntime/report.hpp"
#include "result/name_table.hpp"

namespace kerntime {
namespace {

using detail::name_table;

constexpr name_table<run_status, 3> run_statuses{{
    {run_status::ok, "ok"},
    {run_status::failed, "failed"},
    {run_status::skipped, "skipped"},
}};
constexpr name_table<junit_family, 2> junit_families{{
    {junit_family::xunit1, "xunit1"},
    {junit_family::xunit2, "xunit2"},
}};

} // namespace

KERNTIME_ENUM_NAMES(run_status, run_statuses, parse_run_status)
KERNTIME_ENUM_NAMES(junit_family, junit_families, parse_junit_family)

} // namespace kerntime
