#include "supervise/plan_listing.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "kerntime/errors.hpp"

namespace kerntime::detail {
namespace {

constexpr std::string_view plan_kind = "kerntime_plan";

} // namespace

std::string plan_to_json(const plan_listing& plan) {
  nlohmann::ordered_json states = nlohmann::ordered_json::array();
  for (const auto& s : plan.states) {
    states.push_back({{"plan_index", s.plan_index}, {"name", s.name}, {"benchmark", s.benchmark}});
  }
  nlohmann::ordered_json shard = nullptr;
  if (plan.shard) {
    shard = {{"index", plan.shard->index}, {"count", plan.shard->count}};
  }
  const nlohmann::ordered_json document = {{"kind", plan_kind},
                                           {"kerntime_version", plan.kerntime_version},
                                           {"shard", std::move(shard)},
                                           {"plan_states", plan.plan_states},
                                           {"states", std::move(states)}};
  return document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

// Asked of every file `kerntime merge` is given, result sets of thousands of states included:
// simdjson's on-demand parser looks at the top-level keys only, without building the document.
bool looks_like_plan(std::string_view text) {
  const simdjson::padded_string padded(text);
  simdjson::ondemand::parser parser;
  auto document = parser.iterate(padded);
  std::string_view kind;
  return document.find_field_unordered("kind").get_string().get(kind) == simdjson::SUCCESS &&
         kind == plan_kind;
}

plan_listing parse_plan(std::string_view text, std::string_view source) {
  try {
    const auto j = nlohmann::json::parse(text);
    if (!j.is_object() || !j.contains("kind") || j.at("kind") != plan_kind) {
      throw invalid_argument("it has no \"kind\": \"kerntime_plan\"");
    }
    plan_listing plan;
    plan.kerntime_version = j.at("kerntime_version").get<std::string>();
    if (!j.at("shard").is_null()) {
      plan.shard =
          shard_spec{j.at("shard").at("index").get<int>(), j.at("shard").at("count").get<int>()};
    }
    plan.plan_states = j.at("plan_states").get<std::size_t>();
    for (const auto& s : j.at("states")) {
      plan.states.push_back({s.at("plan_index").get<std::size_t>(), s.at("name").get<std::string>(),
                             s.at("benchmark").get<std::string>()});
    }
    return plan;
  } catch (const std::exception& e) {
    throw invalid_argument(fmt::format("{} is not a kerntime plan: {}; write one with kerntime "
                                       "list --json FILE",
                                       source, e.what()));
  }
}

} // namespace kerntime::detail
