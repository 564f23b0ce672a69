// The names of an axis's kinds (kerntime/benchmark.hpp), as --help and list print them.

#include <string_view>

#include "kerntime/benchmark.hpp"
#include "result/name_table.hpp"

namespace kerntime {
namespace {

using detail::name_table;

constexpr name_table<axis_kind, 4> axis_kinds{{
    {axis_kind::int64, "int"},
    {axis_kind::float64, "float"},
    {axis_kind::string, "string"},
    {axis_kind::type, "type"},
}};

} // namespace

std::string_view to_string(axis_kind k) {
  return detail::name_of(axis_kinds, k);
}

} // namespace kerntime
