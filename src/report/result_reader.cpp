// Reading a kerntime JSON: the file as kerntime writes it, one state per line, is parsed a line
// at a time (simdjson), so reading takes the memory of one state beyond the result itself and a
// nightly suite of thousands of states reads in a fraction of a second. Any other layout of the
// same JSON (an indented file of an earlier version, a file edited by hand) is parsed whole.
// Either way each state goes through the one conversion of result_from_json.cpp.

#include <fmt/format.h>
#include <simdjson.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "kerntime/errors.hpp"
#include "kerntime/report.hpp"
#include "report/detail/gzip_file.hpp"
#include "report/detail/json_fields.hpp"
#include "report/detail/result_from_json.hpp"

namespace kerntime {
namespace {

using detail::json_value;

invalid_argument not_a_result_set(std::string_view source, std::string_view problem) {
  return invalid_argument(fmt::format("{} is not a kerntime result set: {}; write one with "
                                      "`kerntime run --json FILE` or the pytest plugin's "
                                      "--kerntime-json",
                                      source, problem));
}

// One parser per reading: its buffers grow to the largest piece parsed and are reused.
class json_parser {
public:
  // `text` parsed; the view is valid until the next parse.
  json_value parse(std::string_view text, std::string_view where = {}) {
    padded_.assign(text);
    padded_.append(simdjson::SIMDJSON_PADDING, '\0');
    json_value value;
    if (const auto error = parser_.parse(padded_.data(), text.size(), false).get(value)) {
      throw invalid_argument(fmt::format("not JSON{} ({})", where, simdjson::error_message(error)));
    }
    return value;
  }

private:
  simdjson::dom::parser parser_;
  std::string padded_;
};

void check_schema_version(json_value document) {
  if (document.type() != simdjson::dom::element_type::OBJECT ||
      !detail::has_field(document, "json_schema_version")) {
    throw invalid_argument("it has no json_schema_version");
  }
  const json_value version = detail::field(document, "json_schema_version");
  std::int64_t number = 0;
  if (version.get_int64().get(number) != simdjson::SUCCESS || number < oldest_json_schema_version ||
      number > json_schema_version) {
    throw invalid_argument(fmt::format("its json_schema_version is {}, this kerntime reads "
                                       "versions {} to {}",
                                       simdjson::to_string(version), oldest_json_schema_version,
                                       json_schema_version));
  }
}

result_set whole(std::string_view text, const read_options& options) {
  json_parser parser;
  const json_value document = parser.parse(text);
  check_schema_version(document);
  result_set set;
  set.context = detail::context_of(detail::field(document, "context"));
  set.runs = detail::read_list<benchmark_run>(
      detail::field(document, "runs"), "runs",
      [&options](json_value run) { return detail::run_of(run, options.trace); });
  return set;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// The layout json_writer.cpp writes, line by line:
//   {"json_schema_version": N,
//   "context": {...},
//   "runs": [
//   {run},          one line per run, each but the last followed by a comma
//   ]}
// nullopt as soon as a line departs from it: the caller parses the text whole. A line break never
// falls inside a JSON string (the writer escapes it), so the pieces are the whole document.
std::optional<result_set> by_lines(const std::function<bool(std::string_view&)>& next_line,
                                   const read_options& options) {
  constexpr std::string_view version_line = "{\"json_schema_version\": ";
  constexpr std::string_view context_line = "\"context\": ";
  json_parser parser;
  std::string_view line;
  if (!next_line(line) || !starts_with(line, version_line) || !line.ends_with(',')) {
    return std::nullopt;
  }
  line.remove_suffix(1);
  check_schema_version(parser.parse(std::string(line) + "}"));
  if (!next_line(line) || !starts_with(line, context_line) || !line.ends_with(',')) {
    return std::nullopt;
  }
  line.remove_prefix(context_line.size());
  line.remove_suffix(1);
  result_set set;
  set.context = detail::context_of(parser.parse(line));
  if (!next_line(line) || line != "\"runs\": [") {
    return std::nullopt;
  }
  bool more = true;
  std::size_t line_number = 3;
  while (next_line(line)) {
    ++line_number;
    if (line == "]}") {
      while (next_line(line)) { // nothing but white space may follow
        if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
          return std::nullopt;
        }
      }
      return more && !set.runs.empty() ? std::nullopt : std::optional(std::move(set));
    }
    if (!more || !starts_with(line, "{")) {
      return std::nullopt;
    }
    more = line.ends_with(',');
    if (more) {
      line.remove_suffix(1);
    }
    set.runs.push_back(
        detail::run_of(parser.parse(line, fmt::format(" at line {}", line_number)), options.trace));
  }
  return std::nullopt;
}

} // namespace

result_set parse_result_set(std::string_view text, std::string_view source) {
  std::string_view rest = text;
  const auto next_line = [&rest](std::string_view& line) {
    if (rest.empty()) {
      return false;
    }
    const auto newline = rest.find('\n');
    line = rest.substr(0, newline);
    rest = newline == std::string_view::npos ? std::string_view() : rest.substr(newline + 1);
    return true;
  };
  try {
    if (auto set = by_lines(next_line, {})) {
      return std::move(*set);
    }
    return whole(text, {});
  } catch (const invalid_argument& e) {
    throw not_a_result_set(source, e.what());
  }
}

benchmark_run parse_run_json(std::string_view text, std::string_view source) {
  json_parser parser;
  try {
    return detail::run_of(parser.parse(text));
  } catch (const invalid_argument& e) {
    throw invalid_argument(fmt::format("{} is not a kerntime run: {}", source, e.what()));
  }
}

result_set read_result_set(const std::filesystem::path& path, const read_options& options) {
  detail::line_reader lines(path); // refused before anything is read: "cannot read FILE"
  try {
    if (auto set =
            by_lines([&lines](std::string_view& line) { return lines.next(line); }, options)) {
      return std::move(*set);
    }
    detail::line_reader again(path);
    return whole(again.rest(), options);
  } catch (const invalid_argument& e) {
    throw not_a_result_set(path.string(), e.what());
  }
}

} // namespace kerntime
