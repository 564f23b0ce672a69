#include "kerntime/protocol.hpp"

#include <fmt/format.h>

namespace kerntime {

std::optional<std::string> validate(const protocol& p) {
  auto at_least = [](const char* field, long long value,
                     long long minimum) -> std::optional<std::string> {
    if (value >= minimum) {
      return std::nullopt;
    }
    return fmt::format("{} must be at least {} (got {}); pass a value >= {}", field, minimum, value,
                       minimum);
  };
  if (auto e = at_least("warmup", p.warmup, 0)) {
    return e;
  }
  if (auto e = at_least("trials", p.trials, 1)) {
    return e;
  }
  if (auto e = at_least("repeats", p.repeats, 1)) {
    return e;
  }
  if (auto e = at_least("input_sets", p.input_sets, 1)) {
    return e;
  }
  if (!(p.throttle_threshold > 0.0 && p.throttle_threshold <= 1.0)) {
    return fmt::format("throttle_threshold must be in (0, 1] (got {}); e.g. 0.9 for 90 % of the "
                       "maximum SM clock",
                       p.throttle_threshold);
  }
  return std::nullopt;
}

std::string_view to_string(backend_request b) {
  switch (b) {
  case backend_request::automatic:
    return "auto";
  case backend_request::cupti:
    return "cupti";
  case backend_request::events:
    return "events";
  }
  return "?";
}

std::string_view to_string(headline_metric m) {
  return m == headline_metric::span ? "span" : "busy";
}

std::optional<backend_request> parse_backend_request(std::string_view text) {
  if (text == "auto") {
    return backend_request::automatic;
  }
  if (text == "cupti") {
    return backend_request::cupti;
  }
  if (text == "events") {
    return backend_request::events;
  }
  return std::nullopt;
}

std::optional<headline_metric> parse_headline_metric(std::string_view text) {
  if (text == "span") {
    return headline_metric::span;
  }
  if (text == "busy") {
    return headline_metric::busy;
  }
  return std::nullopt;
}

} // namespace kerntime
