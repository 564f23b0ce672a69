#include <ostream>

#include "kerntime/report.hpp"
#include "report/detail/result_json.hpp"

namespace kerntime {
namespace {

// The complete record of an invocation: every sample, the protocol, device, telemetry and
// backend of every state, in the versioned schema of docs/schema/kerntime.schema.json.
class json_writer final : public report_writer {
  void do_print(std::ostream& out, const run_context& context,
                std::span<const benchmark_run> runs) override {
    // Compact, one state per line: a nightly suite of thousands of states is read back by
    // compare, report and merge, and indentation was a third of its bytes; a line per state
    // still diffs and greps state by state. Written as it goes, never as one whole string.
    out << "{\"json_schema_version\": " << json_schema_version
        << ",\n\"context\": " << detail::dump(detail::context_to_json(context), -1)
        << ",\n\"runs\": [";
    for (std::size_t i = 0; i < runs.size(); ++i) {
      out << (i == 0 ? "\n" : ",\n") << detail::dump(detail::run_to_json(runs[i]), -1);
    }
    out << "\n]}\n";
  }
};

} // namespace

std::unique_ptr<report_writer> make_json_writer() {
  return std::make_unique<json_writer>();
}

std::string run_to_json_line(const benchmark_run& run) {
  return detail::dump(detail::run_to_json(run), -1);
}

std::string to_json(const measurement_result& result) {
  return detail::dump(detail::result_to_json(result), -1);
}

} // namespace kerntime
