#include "cli/compare_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <ostream>

#include "cli/input_text.hpp"
#include "cli/name_pattern.hpp"
#include "cli/output_paths.hpp"
#include "kerntime/compare.hpp"
#include "kerntime/errors.hpp"
#include "kerntime/report.hpp"
#include "supervise/exit_codes.hpp"

namespace kerntime::detail {
namespace {

// One file of a side, and whether it was found in a folder given (not named by the user).
struct side_file {
  std::filesystem::path path;
  bool in_folder = false;
};

// The files of one side: each file given, or every *.json of a folder given (a history of runs),
// in name order.
std::vector<side_file> side_files(const std::vector<std::string>& paths, std::string_view side) {
  namespace fs = std::filesystem;
  std::vector<side_file> files;
  for (const auto& given : paths) {
    std::error_code ec;
    if (!fs::is_directory(given, ec)) {
      files.push_back({given, false});
      continue;
    }
    std::vector<fs::path> in_folder;
    for (const auto& entry : fs::directory_iterator(given, ec)) {
      if (entry.path().extension() == ".json") {
        in_folder.push_back(entry.path());
      }
    }
    std::sort(in_folder.begin(), in_folder.end());
    if (in_folder.empty()) {
      throw invalid_argument(fmt::format("the {} folder {} holds no .json file", side, given));
    }
    for (auto& path : in_folder) {
      files.push_back({std::move(path), true});
    }
  }
  if (files.empty()) {
    throw invalid_argument(fmt::format(
        "no {} results given; run kerntime compare BASE.json NEW.json, or --base FILE --new FILE",
        side));
  }
  return files;
}

// Every file of a side read. A folder may hold other JSON beside the runs (an earlier --json
// comparison, a calibration file): those are skipped with a line on `err`; a file named by the
// user must be a result set.
std::vector<result_set> read_side(const std::vector<side_file>& files, std::string_view side,
                                  std::ostream& err) {
  std::vector<result_set> sets;
  sets.reserve(files.size());
  for (const auto& file : files) {
    if (!file.in_folder) {
      sets.push_back(read_result_set(file.path, {.trace = false})); // compare reads no trace
      continue;
    }
    try {
      sets.push_back(read_result_set(file.path, {.trace = false})); // compare reads no trace
    } catch (const invalid_argument& e) {
      err << "kerntime: skipped " << file.path.string() << " in the " << side
          << " folder: " << message_line(e.what()) << '\n';
    }
  }
  if (sets.empty()) {
    throw invalid_argument(fmt::format(
        "the {} folder holds no kerntime result set (every .json in it was skipped)", side));
  }
  return sets;
}

} // namespace

double threshold_flag(const std::string& text) {
  const auto value = parse_threshold(text);
  if (!value) {
    throw invalid_argument(fmt::format(
        "--threshold {} is not a fraction or a percentage; e.g. --threshold 2% or 0.02", text));
  }
  if (!(*value > 0 && *value < 1)) {
    throw invalid_argument(fmt::format(
        "--threshold {}: the band must be above 0 and below 100 % (a fraction in (0, 1)); e.g. "
        "--threshold 2% or 0.02",
        text));
  }
  return *value;
}

clock_mismatch_rule clock_mismatch_flag(const std::string& text) {
  const auto rule = parse_clock_mismatch_rule(text);
  if (!rule) {
    throw invalid_argument(fmt::format("--on-clock-mismatch {} is not a rule; pass "
                                       "--on-clock-mismatch warn or --on-clock-mismatch fail",
                                       text));
  }
  return *rule;
}

void add_clock_mismatch_option(CLI::App& command, std::string& rule) {
  command
      .add_option("--on-clock-mismatch", rule,
                  "A state slower in time but not in cycles (the GPU clocks differed): warn (the "
                  "verdict reads 'slower (clock)', the gate passes) or fail")
      ->capture_default_str();
}

CLI::App* add_compare_command(CLI::App& app, compare_flags& flags) {
  CLI::App& compare = *app.add_subcommand(
      "compare", "Compare two runs' results per state (exit 1 when something got slower)");
  compare.add_option("files", flags.files, "BASE.json NEW.json (kerntime JSON of two runs)");
  compare.add_option("--base", flags.base,
                     "A base result file, or a folder of them; repeat for several runs");
  compare.add_option("--new", flags.changed,
                     "A new result file, or a folder of them; repeat for several runs");
  compare
      .add_option("--threshold", flags.threshold,
                  "A change within this band is 'same', e.g. 2% or 0.02")
      ->capture_default_str();
  compare.add_option("--alpha", flags.alpha, "1 - the intervals' confidence")
      ->capture_default_str();
  compare.add_option("--metric", flags.metric,
                     "Compare span or busy (default: the base run's headline metric)");
  compare.add_option("--filter", flags.filter,
                     "Only states whose name this pattern finds (RE2 syntax), e.g. 'gemm|copy'");
  compare.add_flag("--allow-different-devices", flags.allow_different_devices,
                   "Compare runs from different GPU models");
  add_clock_mismatch_option(compare, flags.on_clock_mismatch);
  add_comparison_output_options(compare, flags.outputs);
  return &compare;
}

int run_compare(const compare_flags& flags, const cli_environment& env) {
  if (!flags.files.empty() && flags.files.size() != 2) {
    throw invalid_argument("give two files, BASE.json NEW.json (or --base and --new)");
  }
  if (!flags.files.empty() && (!flags.base.empty() || !flags.changed.empty())) {
    throw invalid_argument(
        "give either BASE.json NEW.json or --base/--new, not both; --base and --new take "
        "several runs per side");
  }
  compare_options options;
  options.threshold = threshold_flag(flags.threshold);
  options.alpha = flags.alpha;
  if (!flags.metric.empty()) {
    options.metric = parse_headline_metric(flags.metric);
    if (!options.metric) {
      throw invalid_argument(fmt::format(
          "--metric {} is not a metric; pass --metric span or --metric busy", flags.metric));
    }
  }
  if (flags.filter) {
    options.select = [pattern = std::make_shared<const name_pattern>(*flags.filter, "--filter")](
                         std::string_view state) { return pattern->finds(state); };
  }
  options.allow_different_devices = flags.allow_different_devices;
  options.on_clock_mismatch = clock_mismatch_flag(flags.on_clock_mismatch);
  // What is written where, checked before any file is read.
  const std::vector<comparison_output> outputs = comparison_outputs(flags.outputs);
  const std::vector<output_path> paths = files_of(outputs);
  const auto base_files =
      side_files(flags.files.empty() ? flags.base : std::vector{flags.files[0]}, "base");
  const auto new_files =
      side_files(flags.files.empty() ? flags.changed : std::vector{flags.files[1]}, "new");
  std::vector<input_path> inputs;
  for (const auto& [role, files] :
       {std::pair{"the base results", &base_files}, std::pair{"the new results", &new_files}}) {
    for (const auto& file : *files) {
      inputs.push_back({role, file.path});
    }
  }
  check_output_paths(paths, inputs);
  const auto base = read_side(base_files, "base", *env.err);
  const auto changed = read_side(new_files, "new", *env.err);
  const comparison c = compare(base, changed, options);
  if (!flags.outputs.quiet) {
    *env.out << comparison_markdown(c) << std::flush;
  }
  for (const auto& output : outputs) {
    write_file_atomically(output.file.path, [&](std::ostream& file) { file << output.text(c); });
  }
  if (const std::string advice = clock_mismatch_advice(c); !advice.empty()) {
    *env.err << "kerntime: " << advice << '\n';
  }
  if (has_regression(c)) {
    *env.err << "kerntime: a state got slower beyond the band (listed first)\n";
    return exit_regression;
  }
  return exit_ok;
}

} // namespace kerntime::detail
