#include "supervise/worker_messages.hpp"

#include <charconv>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kerntime/errors.hpp"

namespace kerntime::detail {
namespace {

constexpr std::string_view run_word = "run ";
constexpr std::string_view reference_word = "reference";
constexpr std::string_view ready_word = "ready ";
constexpr std::string_view unusable_word = "unusable ";
constexpr std::string_view result_word = "result ";

// Control characters would end the line early: a reason is shown as one line anyway.
std::string without_line_breaks(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == '\n' || c == '\r') {
      c = ' ';
    }
  }
  return out;
}

} // namespace

std::string run_command(std::size_t plan_index, std::string_view state_name) {
  return fmt::format("{}{} {}", run_word, plan_index, without_line_breaks(state_name));
}

std::optional<run_request> parse_run_command(std::string_view line) {
  if (!line.starts_with(run_word)) {
    return std::nullopt;
  }
  line.remove_prefix(run_word.size());
  run_request request;
  const auto space = line.find(' ');
  const auto number = line.substr(0, space);
  const auto [end, problem] =
      std::from_chars(number.data(), number.data() + number.size(), request.plan_index);
  if (number.empty() || problem != std::errc() || end != number.data() + number.size() ||
      space == std::string_view::npos) {
    return std::nullopt;
  }
  request.state_name = std::string(line.substr(space + 1));
  return request;
}

std::string reference_command() {
  return std::string(reference_word);
}

bool is_reference_command(std::string_view line) {
  return line == reference_word;
}

std::string ready_message(const std::optional<run_device>& device, std::string_view reference) {
  nlohmann::json j = nullptr;
  if (device) {
    j = {{"host", device->host},
         {"ordinal", device->ordinal},
         {"name", device->name},
         {"uuid", device->uuid}};
    if (!reference.empty()) {
      j["reference"] = reference;
    }
  }
  return std::string(ready_word) + j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string unusable_message(std::string_view why) {
  return std::string(unusable_word) + without_line_breaks(why);
}

std::string result_message(const benchmark_run& run) {
  return std::string(result_word) + run_to_json_line(run);
}

worker_message parse_worker_message(std::string_view line) {
  worker_message m;
  if (line.starts_with(result_word)) {
    m.what = worker_message::kind::result;
    m.run = parse_run_json(line.substr(result_word.size()), "a worker's result");
    return m;
  }
  if (line.starts_with(unusable_word)) {
    m.what = worker_message::kind::unusable;
    m.text = std::string(line.substr(unusable_word.size()));
    return m;
  }
  if (line.starts_with(ready_word)) {
    m.what = worker_message::kind::ready;
    try {
      const auto j = nlohmann::json::parse(line.substr(ready_word.size()));
      if (!j.is_null()) {
        m.device = run_device{j.at("host").get<std::string>(), j.at("ordinal").get<int>(),
                              j.at("name").get<std::string>(), j.at("uuid").get<std::string>()};
        m.reference = j.value("reference", std::string());
      }
    } catch (const nlohmann::json::exception& e) {
      throw invalid_argument(fmt::format("a worker's ready line is not understood: {}", e.what()));
    }
    return m;
  }
  throw invalid_argument(
      fmt::format("a worker sent a line that is not a message: \"{}\"", line.substr(0, 200)));
}

} // namespace kerntime::detail
