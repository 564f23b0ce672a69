#include "cli/history_command.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <numeric>
#include <ostream>

#include "cli/compare_command.hpp"
#include "cli/name_pattern.hpp"
#include "cli/run_context.hpp"
#include "history/change_points.hpp"
#include "history/history_store.hpp"
#include "history/trends_page.hpp"
#include "kerntime/errors.hpp"
#include "kerntime/report.hpp"
#include "result/message_words.hpp"
#include "supervise/exit_codes.hpp"

namespace kerntime::detail {
namespace {

run_labels labels_of(const history_target& target) {
  run_labels labels{target.commit, target.branch, {}};
  for (const auto& label : target.labels) {
    const auto equals = label.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw invalid_argument(
          fmt::format("--label {} is not KEY=VALUE; e.g. --label runner=h200-3", label));
    }
    labels.labels.emplace_back(label.substr(0, equals), label.substr(equals + 1));
  }
  return labels;
}

int add_runs(const history_flags& flags, const cli_environment& env) {
  const auto labels = labels_of(flags.target);
  history_store store(flags.target.store, true);
  for (const auto& path : flags.inputs) {
    const result_set set = read_result_set(path, {.trace = false});
    const auto id = store.add(set, labels, path);
    *env.out << fmt::format("{}: added as run {} ({}){}\n", path, id,
                            counted(set.runs.size(), "state"),
                            flags.target.commit.empty() ? "" : ", commit " + flags.target.commit);
  }
  return exit_ok;
}

std::vector<trend_series> selected_series(const history_store& store, const history_flags& flags) {
  std::optional<name_pattern> pattern;
  if (flags.filter) {
    pattern.emplace(*flags.filter, "--filter");
  }
  const auto wanted = [&](const std::string& device, const std::string& state) {
    return (!flags.device || device == *flags.device) && (!pattern || pattern->finds(state));
  };
  std::vector<std::pair<std::string, std::string>> names;
  for (const auto& [device, state] : store.series_names()) {
    if (wanted(device, state)) {
      names.emplace_back(device, state);
    }
  }
  std::vector<trend_series> out;
  constexpr std::size_t one_query_each = 32; // beyond, one pass over the store is quicker
  if (names.size() <= one_query_each) {
    for (const auto& [device, state] : names) {
      auto points = store.series({state, device, flags.branch_filter});
      if (!points.empty()) {
        out.push_back({device, state, std::move(points), {}, {}});
      }
    }
  } else {
    store.each_series(flags.branch_filter, [&](const std::string& device, const std::string& state,
                                               std::vector<series_point> points) {
      if (wanted(device, state)) {
        out.push_back({device, state, std::move(points), {}, {}});
      }
    });
  }
  if (out.empty()) {
    throw invalid_argument(fmt::format(
        "no series in {} matches{}{}{}; `kerntime history show "
        "--store {}` lists them",
        flags.target.store, flags.filter ? " --filter " + *flags.filter : "",
        flags.device ? " --device " + *flags.device : "",
        flags.branch_filter ? " --branch " + *flags.branch_filter : "", flags.target.store));
  }
  return out;
}

std::string micro(double ns) {
  return fmt::format("{:.3f} µs", ns / 1000);
}

void write_json(const std::optional<std::string>& target, const nlohmann::json& document,
                const cli_environment& env) {
  if (!target) {
    return;
  }
  if (*target == "-") {
    *env.out << document.dump(2) << '\n';
  } else {
    write_file_atomically(*target, [&](std::ostream& out) { out << document.dump(2) << '\n'; });
  }
}

// --threshold and --alpha, checked.
std::pair<double, double> change_rule(const history_flags& flags) {
  const double threshold = threshold_flag(flags.threshold);
  if (!(flags.alpha > 0 && flags.alpha < 1)) {
    throw invalid_argument(
        fmt::format("--alpha {} must be above 0 and below 1; e.g. 0.01", flags.alpha));
  }
  return {threshold, flags.alpha};
}

// The level shifts of each series, and which are slower with their whole interval beyond the band.
void find_changes(std::vector<trend_series>& all, double threshold, double alpha) {
  for (auto& s : all) {
    std::vector<double> medians;
    medians.reserve(s.points.size());
    for (const auto& p : s.points) {
      medians.push_back(p.median_ns);
    }
    s.changes = find_change_points(medians, {.alpha = alpha});
    s.slower_beyond_band.clear();
    for (const auto& c : s.changes) {
      s.slower_beyond_band.push_back(c.ratio_low > 1 + threshold);
    }
  }
}

int show(const history_flags& flags, const cli_environment& env) {
  const auto [threshold, alpha] = change_rule(flags);
  const history_store store(flags.target.store, false);
  auto all = selected_series(store, flags);
  // The markdown unless the JSON goes to stdout or the page is the view; the JSON only if asked.
  const bool markdown = flags.json != "-" && !flags.html;
  nlohmann::json document = {{"series", nlohmann::json::array()}};
  for (const auto& s : all) {
    if (markdown) {
      *env.out << fmt::format("## {} on {}\n\n| run | date | commit | branch | median | interval "
                              "|\n|---:|---|---|---|---:|---|\n",
                              s.state, s.device);
      for (const auto& p : s.points) {
        *env.out << fmt::format("| {} | {} | {} | {} | {} | {} |\n", p.run_id, p.date, p.commit,
                                p.branch, micro(p.median_ns),
                                p.low_ns && p.high_ns
                                    ? fmt::format("[{}, {}]", micro(*p.low_ns), micro(*p.high_ns))
                                    : std::string("–"));
      }
      *env.out << '\n';
    }
    if (!flags.json) {
      continue;
    }
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : s.points) {
      points.push_back(
          {{"run", p.run_id},
           {"date", p.date},
           {"commit", p.commit},
           {"branch", p.branch},
           {"median_ns", p.median_ns},
           {"low_ns", p.low_ns ? nlohmann::json(*p.low_ns) : nlohmann::json()},
           {"high_ns", p.high_ns ? nlohmann::json(*p.high_ns) : nlohmann::json()},
           {"sm_clock_mhz", p.sm_clock_mhz ? nlohmann::json(*p.sm_clock_mhz) : nlohmann::json()}});
    }
    document["series"].push_back({{"device", s.device}, {"state", s.state}, {"points", points}});
  }
  write_json(flags.json, document, env);
  if (flags.html) {
    find_changes(all, threshold, alpha);
    const std::string page =
        trends_page(all, {.store = flags.target.store, .threshold = threshold});
    write_file_atomically(*flags.html, [&](std::ostream& out) { out << page; });
    std::size_t changes = 0;
    for (const auto& s : all) {
      changes += s.changes.size();
    }
    *env.err << fmt::format("kerntime: wrote {} ({} series, {})\n", *flags.html, all.size(),
                            counted(changes, "change"));
  }
  return exit_ok;
}

// The kernels of the last good and the first bad run: appeared, disappeared, moved beyond the band.
std::vector<std::string> kernel_changes(const history_store& store, const std::string& state,
                                        const series_point& good, const series_point& bad,
                                        double threshold) {
  const auto good_kernels = store.kernels_of(good.run_id, state);
  const auto bad_kernels = store.kernels_of(bad.run_id, state);
  std::map<std::string, double> before(good_kernels.begin(), good_kernels.end());
  std::map<std::string, double> after(bad_kernels.begin(), bad_kernels.end());
  std::vector<std::string> out;
  for (const auto& [name, ns] : after) {
    const auto it = before.find(name);
    if (it == before.end()) {
      out.push_back(fmt::format("appeared: {} ({})", name, micro(ns)));
    } else if (it->second > 0 && std::abs(ns / it->second - 1) > threshold) {
      out.push_back(fmt::format("moved: {} {} -> {} ({:+.1f} %)", name, micro(it->second),
                                micro(ns), 100 * (ns / it->second - 1)));
    }
  }
  for (const auto& [name, ns] : before) {
    if (!after.contains(name)) {
      out.push_back(fmt::format("disappeared: {} ({})", name, micro(ns)));
    }
  }
  return out;
}

int changes(const history_flags& flags, const cli_environment& env) {
  const auto [threshold, alpha] = change_rule(flags);
  const history_store store(flags.target.store, false);
  auto all = selected_series(store, flags);
  find_changes(all, threshold, alpha);
  nlohmann::json document = {
      {"threshold", threshold}, {"alpha", alpha}, {"changes", nlohmann::json::array()}};
  int slower_at_tip = 0;
  std::size_t found = 0;
  const bool markdown = flags.json != "-";
  if (markdown) {
    *env.out << "| state | device | last good run | first changed run | change [95 % interval] "
                "| SM clock before → after | kernels |\n|---|---|---|---|---|---|---|\n";
  }
  for (const auto& s : all) {
    const auto& found_here = s.changes;
    for (std::size_t i = 0; i < found_here.size(); ++i) {
      const auto& c = found_here[i];
      const auto& good = s.points[c.index - 1];
      const auto& bad = s.points[c.index];
      const std::size_t from = i == 0 ? 0 : found_here[i - 1].index;
      const std::size_t to = i + 1 == found_here.size() ? s.points.size() : found_here[i + 1].index;
      const std::span<const series_point> points(s.points);
      const auto clock_before = mean_sm_clock(points.subspan(from, c.index - from));
      const auto clock_after = mean_sm_clock(points.subspan(c.index, to - c.index));
      const bool tip = i + 1 == found_here.size();
      const bool slower = s.slower_beyond_band[i];
      slower_at_tip += tip && slower ? 1 : 0;
      ++found;
      const auto kernels = kernel_changes(store, s.state, good, bad, threshold);
      const auto run_text = [](const series_point& p) {
        return fmt::format("run {} ({}{})", p.run_id, p.date,
                           p.commit.empty() ? "" : ", " + p.commit);
      };
      if (markdown) {
        *env.out << fmt::format(
            "| {}{} | {} | {} | {} | {} | {} | {} |\n", s.state, tip && slower ? " **slower**" : "",
            s.device, run_text(good), run_text(bad), change_text(c),
            clock_before && clock_after
                ? fmt::format("{:.0f} → {:.0f} MHz", *clock_before, *clock_after)
                : std::string("–"),
            kernels.empty() ? std::string("–") : fmt::format("{}", fmt::join(kernels, "; ")));
      }
      document["changes"].push_back(
          {{"device", s.device},
           {"state", s.state},
           {"last_good", {{"run", good.run_id}, {"date", good.date}, {"commit", good.commit}}},
           {"first_changed", {{"run", bad.run_id}, {"date", bad.date}, {"commit", bad.commit}}},
           {"ratio", c.ratio},
           {"ratio_low", c.ratio_low},
           {"ratio_high", c.ratio_high},
           {"p_value", c.p_value},
           {"at_tip", tip},
           {"slower_beyond_band", slower},
           {"sm_clock_before_mhz", clock_before ? nlohmann::json(*clock_before) : nlohmann::json()},
           {"sm_clock_after_mhz", clock_after ? nlohmann::json(*clock_after) : nlohmann::json()},
           {"kernels", kernels}});
    }
  }
  if (markdown) {
    *env.out << fmt::format("\n{} change{} in {} series; {} state{} slower at the tip beyond "
                            "±{:g} %\n",
                            found, found == 1 ? "" : "s", all.size(), slower_at_tip,
                            slower_at_tip == 1 ? "" : "s", 100 * threshold);
  }
  write_json(flags.json, document, env);
  return slower_at_tip > 0 ? exit_regression : exit_ok;
}

// The newest --last runs of one GPU model (and branch), every state of each with its result:
// a result set of several runs per state, which compare reads as that many base runs.
int baseline(const history_flags& flags, const std::vector<std::string>& args,
             const cli_environment& env) {
  if (flags.last < 2) {
    throw invalid_argument(fmt::format(
        "--last {}: a baseline needs at least 2 runs (their spread is the point); e.g. --last 5",
        flags.last));
  }
  if (!flags.json) {
    throw invalid_argument("history baseline writes a result file: give --json FILE (or - for "
                           "stdout), then kerntime compare --base FILE NEW.json");
  }
  const history_store store(flags.target.store, false);
  std::string device;
  if (flags.device) {
    device = *flags.device;
  } else {
    const auto devices = store.devices(flags.branch_filter);
    if (devices.size() != 1) {
      throw invalid_argument(fmt::format(
          "{}: pick the GPU model with --device (the store holds {}{})", flags.target.store,
          devices.empty() ? "no runs" : fmt::format("runs of {}", fmt::join(devices, ", ")),
          flags.branch_filter ? " on branch " + *flags.branch_filter : ""));
    }
    device = devices.front();
  }
  const auto runs = store.last_runs(device, flags.branch_filter, flags.last);
  std::optional<name_pattern> pattern;
  if (flags.filter) {
    pattern.emplace(*flags.filter, "--filter");
  }
  std::vector<benchmark_run> states;
  std::vector<std::string> used;
  std::vector<std::string> without_results;
  for (const auto& run : runs) {
    auto results = store.results_of(run.id);
    (results ? used : without_results)
        .push_back(fmt::format("run {} ({}{})", run.id, run.date,
                               run.commit.empty() ? "" : ", " + run.commit));
    for (auto& state : results.value_or(std::vector<benchmark_run>())) {
      if (!pattern || pattern->finds(state.state_name)) {
        states.push_back(std::move(state));
      }
    }
  }
  if (states.empty() && flags.filter) {
    throw invalid_argument(
        fmt::format("--filter {} matches no state of {}", *flags.filter, fmt::join(used, ", ")));
  }
  if (used.size() < 2) {
    throw invalid_argument(fmt::format(
        "{} holds {} run{} of {}{} with results to make a baseline of; a baseline needs at "
        "least 2{}",
        flags.target.store, used.size(), used.size() == 1 ? "" : "s", device,
        flags.branch_filter ? " on branch " + *flags.branch_filter : "",
        without_results.empty() ? ""
                                : fmt::format(" ({} without results in the store: added by a "
                                              "kerntime that kept none, or pruned)",
                                              fmt::join(without_results, ", "))));
  }
  const auto context = make_run_context(args, states);
  const auto write = [&](std::ostream& out) { make_json_writer()->print(out, context, states); };
  if (*flags.json == "-") {
    write(*env.out);
  } else {
    write_file_atomically(*flags.json, write);
    *env.out << fmt::format(
        "{}: a baseline of {} of {}{}: {}\n", *flags.json, counted(used.size(), "run"), device,
        flags.branch_filter ? " on branch " + *flags.branch_filter : "", fmt::join(used, ", "));
  }
  if (!without_results.empty()) {
    *env.err << fmt::format("kerntime: left out {}: no results in the store (added by a kerntime "
                            "that kept none, or pruned)\n",
                            fmt::join(without_results, ", "));
  }
  return exit_ok;
}

} // namespace

void add_run_label_options(CLI::App& command, history_target& target) {
  command.add_option("--commit", target.commit, "The commit the run measured (history)");
  command.add_option("--branch", target.branch, "The branch the run measured (history)");
  command.add_option("--label", target.labels,
                     "KEY=VALUE kept with the run in the history; repeat for several");
}

void check_history_target(const history_target& target) {
  (void)labels_of(target);
  const history_store store(target.store, true);
}

std::int64_t add_to_history(const history_target& target, const result_set& set,
                            const std::string& source) {
  history_store store(target.store, true);
  return store.add(set, labels_of(target), source);
}

history_commands add_history_command(CLI::App& app, history_flags& flags) {
  CLI::App& history = *app.add_subcommand(
      "history", "Keep runs in a store and find which commit made a state slower (add, show, "
                 "changes, baseline)");
  history.require_subcommand(1);
  history_commands c;
  c.history = &history;
  c.add = history.add_subcommand("add", "Keep runs' results in the history store");
  c.add->add_option("files", flags.inputs, "kerntime JSON files (run --json, merge --json)")
      ->required();
  add_run_label_options(*c.add, flags.target);
  c.show = history.add_subcommand("show", "Each state's series: median and interval per run");
  c.changes = history.add_subcommand(
      "changes", "Level shifts in each state's series, with the runs and commits around each "
                 "(exit 1 when a state's latest change made it slower)");
  c.baseline = history.add_subcommand(
      "baseline", "Write the newest runs of a branch as one baseline file (several runs per "
                  "state) for compare --base and run --baseline");
  c.baseline->add_option("--last", flags.last, "How many of the newest runs (at least 2)");
  for (auto* command : {c.add, c.show, c.changes, c.baseline}) {
    command->add_option("--store", flags.target.store,
                        "The history store: a SQLite file (created by add), or a PostgreSQL "
                        "database, postgresql://USER@HOST:PORT/DATABASE");
  }
  for (auto* command : {c.show, c.changes, c.baseline}) {
    command->add_option("--filter", flags.filter,
                        "Only states whose name this pattern finds (RE2 syntax)");
    command->add_option("--device", flags.device, "Only this GPU model, e.g. 'NVIDIA H200'");
    command->add_option("--branch", flags.branch_filter, "Only runs of this branch");
    command->add_option("--json", flags.json, "Write JSON to FILE, or - for stdout")
        ->expected(0, 1)
        ->default_str("-");
  }
  c.show->add_option("--html", flags.html,
                     "Write a page with a trend chart per state, each change marked with its "
                     "commits");
  for (auto* command : {c.show, c.changes}) {
    command->add_option("--threshold", flags.threshold,
                        "A latest change slower than this band fails the gate, e.g. 1% or 0.01");
    command->add_option("--alpha", flags.alpha,
                        "False changes per series, at most (the test's level)");
  }
  return c;
}

int run_history(const history_commands& commands, const history_flags& flags,
                const std::vector<std::string>& args, const cli_environment& env) {
  if (*commands.add) {
    return add_runs(flags, env);
  }
  if (*commands.baseline) {
    return baseline(flags, args, env);
  }
  if (*commands.show) {
    return show(flags, env);
  }
  return changes(flags, env);
}

} // namespace kerntime::detail
