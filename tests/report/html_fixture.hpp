#pragma once
// The report the HTML tests render: the sample runs and one more state whose names a page must
// show as text, never as markup: a kernel named <script>alert(1)</script>, a benchmark name with
// quotes, ampersands and angle brackets, an axis value that closes a <title> and a control
// character; it also has a speed of light and energy. Its own file, so the other writers' goldens
// (sample_runs) stay as they are.

#include <string>
#include <vector>

#include "kerntime/report.hpp"

namespace kerntime::test {

[[nodiscard]] std::string script_kernel_name(); // "<script>alert(1)</script>"
[[nodiscard]] std::string hostile_benchmark_name();
[[nodiscard]] std::vector<benchmark_run> html_fixture_runs();

} // namespace kerntime::test
