#pragma once
// Golden files: the exact output of a writer for the sample runs, kept in tests/report/golden.
// KERNTIME_UPDATE_GOLDEN=1 rewrites them (then review the diff before committing).

#include <string>

namespace kerntime::test {

[[nodiscard]] std::string read_golden(const std::string& name);
void expect_matches_golden(const std::string& actual, const std::string& name);

} // namespace kerntime::test
