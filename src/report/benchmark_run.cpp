#include <fmt/format.h>

#include <array>

#include "kerntime/report.hpp"

namespace kerntime {

std::string make_state_name(std::string_view benchmark,
                            std::span<const std::pair<std::string, std::string>> axes) {
  std::string name(benchmark);
  for (const auto& [axis, value] : axes) {
    name += '/';
    name += axis;
    name += '=';
    name += value;
  }
  return name;
}

std::span<const report_format> report_formats() {
  static const std::array<report_format, 7> formats = {{
      {"markdown", "", "Markdown tables (stdout)", make_markdown_writer},
      {"json", "--json", "Write the kerntime JSON (every sample) to FILE", make_json_writer},
      {"gbench_json", "--gbench-json",
       "Write Google-Benchmark-compatible JSON (for compare.py) to FILE", make_gbench_json_writer},
      {"junit", "--junit", "Write JUnit XML (a testcase per state) to FILE",
       [] { return make_junit_writer(); }},
      {"csv", "--csv", "Write CSV (a row per state) to FILE", make_csv_writer},
      {"trace", "--trace", "Write a Chrome/Perfetto trace of one trial to FILE", make_trace_writer},
      {"html", "--html", "Write an HTML report (charts, self-contained: opens offline) to FILE",
       [] { return make_html_writer(); }},
  }};
  return formats;
}

const report_format& find_report_format(std::string_view name) {
  std::string known;
  for (const auto& format : report_formats()) {
    if (format.name == name) {
      return format;
    }
    known += known.empty() ? std::string(format.name) : ", " + std::string(format.name);
  }
  throw invalid_argument(fmt::format("unknown report format \"{}\": {}", name, known));
}

} // namespace kerntime
