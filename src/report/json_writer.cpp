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
    nlohmann::ordered_json document;
    document["json_schema_version"] = json_schema_version;
    document["context"] = detail::context_to_json(context);
    document["runs"] = nlohmann::ordered_json::array();
    for (const auto& run : runs) {
      document["runs"].push_back(detail::run_to_json(run));
    }
    out << detail::dump(document, 2) << '\n';
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
