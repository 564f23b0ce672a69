#include "cli/parse_errors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/input_text.hpp"
#include "supervise/exit_codes.hpp"

namespace kerntime::detail {
namespace {

// "run, list, info, compare, merge, ab, calibrate and report": every command, in --help's order.
std::string command_names(CLI::App& app) {
  std::vector<std::string> names;
  for (const auto* command : app.get_subcommands({})) {
    names.push_back(command->get_name());
  }
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return text;
}

} // namespace

std::optional<int> parse_or_explain(CLI::App& app, const std::vector<std::string>& args,
                                    const std::string& program, std::ostream& out,
                                    std::ostream& err) {
  std::vector<const char*> argv;
  argv.reserve(args.size());
  for (const auto& a : args) {
    argv.push_back(a.c_str());
  }
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::RequiredError& e) {
    if (app.get_subcommands().empty()) {
      const bool named = args.size() > 1 && !args[1].empty() && args[1].front() != '-';
      err << "kerntime: error: "
          << (named ? message_line(quoted_input(args[1]) + " is not a kerntime command")
                    : std::string("a command is required"))
          << "; the commands are " << command_names(app) << " (" << program
          << " --help explains them)\n";
    } else {
      err << "kerntime: error: " << message_line(e.what()) << "; see kerntime --help\n";
    }
    return exit_bad_input;
  } catch (const CLI::ExtrasError&) {
    // CLI11 lists the extras in reverse; name them in the order they were typed.
    const auto subcommands = app.get_subcommands();
    const std::string command = subcommands.empty() ? "kerntime" : subcommands.front()->get_name();
    err << "kerntime: error: "
        << message_line(
               fmt::format("{} does not take {}", command,
                           quoted_input(fmt::format("{}", fmt::join(app.remaining(true), " ")))))
        << "; see kerntime " << (subcommands.empty() ? "" : command + " ") << "--help\n";
    return exit_bad_input;
  } catch (const CLI::ParseError& e) {
    err << "kerntime: error: " << message_line(e.what()) << "; see kerntime --help or kerntime run "
        << "--help\n";
    return exit_bad_input;
  }

  return std::nullopt;
}

} // namespace kerntime::detail
