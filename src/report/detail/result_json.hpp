#pragma once
// The kerntime JSON schema (docs/schema/kerntime.schema.json), as nlohmann objects, shared by
// the JSON writer and to_json(). Times are in nanoseconds and every field that holds one ends in
// "_ns"; absent optional readings are null.

#include <nlohmann/json.hpp>

#include "kerntime/report.hpp"

namespace kerntime::detail {

[[nodiscard]] nlohmann::ordered_json result_to_json(const measurement_result& result);
[[nodiscard]] nlohmann::ordered_json device_to_json(const device_info& device);
[[nodiscard]] nlohmann::ordered_json device_telemetry_to_json(const device_telemetry& telemetry);
[[nodiscard]] nlohmann::ordered_json run_to_json(const benchmark_run& run);
[[nodiscard]] nlohmann::ordered_json context_to_json(const run_context& context);

// Dumps with invalid UTF-8 replaced by U+FFFD instead of throwing: a kernel name with one odd
// byte must not cost the whole report.
[[nodiscard]] std::string dump(const nlohmann::ordered_json& value, int indent);

} // namespace kerntime::detail
