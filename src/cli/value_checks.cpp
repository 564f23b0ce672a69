#include "cli/value_checks.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "cli/input_text.hpp"

namespace kerntime::detail {
namespace {

// CLI11 prefixes each message with the flag ("--repeat: ...").
std::string whole_number_problem(const std::string& text) {
  if (text.empty()) {
    return "an empty value is not a number; give a whole number";
  }
  long long value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error == std::errc::result_out_of_range) {
    return fmt::format("{} is out of range for a whole number", quoted_input(text));
  }
  if (error != std::errc() || stop != end) {
    return fmt::format("{} is not a whole number", quoted_input(text));
  }
  return {};
}

std::string real_number_problem(const std::string& text) {
  if (text.empty()) {
    return "an empty value is not a number; give a number";
  }
  errno = 0;
  char* stop = nullptr;
  const double value = std::strtod(text.c_str(), &stop);
  if (stop != text.c_str() + text.size()) {
    return fmt::format("{} is not a number", quoted_input(text));
  }
  if (errno == ERANGE || !std::isfinite(value)) {
    return fmt::format("{} is not a finite number in range", quoted_input(text));
  }
  return {};
}

std::string text_problem(const std::string& text) {
  return text.empty() ? "an empty value; give one, or leave the flag out" : std::string();
}

void check_options(CLI::App& app) {
  const CLI::Validator whole_number([](std::string& text) { return whole_number_problem(text); },
                                    "", "whole number");
  const CLI::Validator real_number([](std::string& text) { return real_number_problem(text); }, "",
                                   "number");
  const CLI::Validator non_empty([](std::string& text) { return text_problem(text); }, "",
                                 "non-empty");
  for (CLI::Option* option : app.get_options()) {
    if (option->get_items_expected_max() == 0) {
      continue; // a flag
    }
    const std::string type = option->get_type_name();
    if (type == "INT" || type == "UINT") {
      option->check(whole_number);
    } else if (type == "FLOAT") {
      option->check(real_number);
    } else {
      option->check(non_empty);
    }
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    check_options(*sub);
  }
}

} // namespace

void check_every_value(CLI::App& app) {
  check_options(app);
}

} // namespace kerntime::detail
