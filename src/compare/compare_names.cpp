// The names of compare's enums, as every output, flag and binding spells them
// (result/name_table.hpp).

#include "kerntime/compare.hpp"
#include "result/name_table.hpp"

namespace kerntime {
namespace {

constexpr detail::name_table<verdict, 4> verdicts{{
    {verdict::slower, "slower"},
    {verdict::faster, "faster"},
    {verdict::same, "same"},
    {verdict::inconclusive, "inconclusive"},
}};
constexpr detail::name_table<clock_mismatch_rule, 2> clock_mismatch_rules{{
    {clock_mismatch_rule::warn, "warn"},
    {clock_mismatch_rule::fail, "fail"},
}};

} // namespace

KERNTIME_ENUM_NAMES(verdict, verdicts, parse_verdict)
KERNTIME_ENUM_NAMES(clock_mismatch_rule, clock_mismatch_rules, parse_clock_mismatch_rule)

} // namespace kerntime
