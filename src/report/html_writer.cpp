// The HTML report: one self-contained page (inline CSS and SVG; no script, no font, nothing
// fetched when it is viewed). This file is the page: its head, the run's facts, the comparison
// (report/detail/html_comparison.cpp), per benchmark the latency table (html_latency_table.cpp)
// and per state its article: the distribution of every iteration by trial, the per-kernel
// breakdown, the counters and the clocks per trial (html_sections.hpp) and, given a comparison,
// the ratio to the baseline with its interval.
// Kernel and state names are untrusted text: everything shown passes through html_escape, and a
// Content-Security-Policy forbids every script, so even a missed escape could run nothing.

#include <fmt/format.h>

#include <ostream>

#include "kerntime/comparison.hpp"
#include "kerntime/report.hpp"
#include "report/detail/benchmark_groups.hpp"
#include "report/detail/html_comparison.hpp"
#include "report/detail/html_latency_table.hpp"
#include "report/detail/html_sections.hpp"
#include "report/detail/html_style.hpp"
#include "report/detail/html_text.hpp"
#include "report/detail/stopping_text.hpp"
#include "report/detail/text.hpp"
#include "report/detail/units.hpp"

namespace kerntime {
namespace {

using detail::html_escape;
using detail::html_id;

class html_writer final : public report_writer {
public:
  explicit html_writer(const comparison* compared) : compared_(compared) {}

private:
  // A dot per sample while the page holds at most this many (a 26-state suite run holds 6,500);
  // beyond, each trial is drawn as its spread: 650,000 dots made a 52 MB page at 2,600 states.
  static constexpr std::size_t most_dots = 50'000;
  // Each state's charts (distribution, kernels, counters, telemetry: about 11 KB) while the page
  // holds at most this many measured states; beyond, a state is a row of its benchmark's table
  // with its trials drawn small: 2,600 states made a 30 MB page.
  static constexpr std::size_t most_states_drawn = 200;

  detail::compared_states compared_;
  bool dots_ = true;
  bool summary_ = false;

  void do_print(std::ostream& out, const run_context& context,
                std::span<const benchmark_run> runs) override {
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
           "style-src 'unsafe-inline'\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
           "<meta name=\"generator\" content=\"kerntime "
        << html_escape(context.kerntime_version) << "\">\n<title>kerntime report</title>\n<style>"
        << detail::html_style_sheet << "</style>\n</head>\n<body>\n<main>\n";
    const auto groups = detail::group_by_benchmark(runs);
    std::size_t samples = 0;
    for (const auto& run : runs) {
      if (run.result) {
        for (const auto& trial : run.result->trials) {
          samples += trial.iterations.size();
        }
      }
    }
    dots_ = samples <= most_dots;
    const auto measured = static_cast<std::size_t>(std::count_if(
        runs.begin(), runs.end(), [](const auto& r) { return r.result.has_value(); }));
    summary_ = measured > most_states_drawn;
    print_header(out, context, runs, groups);
    if (summary_) {
      out << fmt::format(
          "<p class=\"summary-note\">{} measured states: too many to draw each one's charts, so "
          "each state is a row of its benchmark's table, its trials drawn small (per trial, top "
          "to bottom, a line from p10 to p90 and a tick at its median, on the state's own "
          "scale). For the charts of the states you choose: <code>kerntime report RESULTS.json "
          "--filter REGEX --html PAGE</code>.</p>\n",
          measured);
    }
    print_energy_hint(out, runs);
    if (compared_.all() != nullptr) {
      detail::print_comparison_section(out, *compared_.all(), compared_.confidence());
    }
    for (std::size_t g = 0; g < groups.size(); ++g) {
      print_benchmark(out, g, groups[g], runs);
    }
    out << "</main>\n</body>\n</html>\n";
  }

  static void print_header(std::ostream& out, const run_context& context,
                           std::span<const benchmark_run> runs,
                           const std::vector<detail::benchmark_group>& groups) {
    int counts[3] = {};
    for (const auto& r : runs) {
      ++counts[static_cast<int>(r.status)];
    }
    out << "<header id=\"summary\">\n<h1>kerntime report</h1>\n<dl class=\"facts\">\n";
    const auto fact = [&out](std::string_view name, std::string_view value) {
      out << "<dt>" << name << "</dt><dd>" << html_escape(value) << "</dd>\n";
    };
    if (context.device) {
      const auto& d = *context.device;
      fact("GPU",
           fmt::format("{} (sm_{}{}, {} SMs), driver {}.{}, CUDA runtime {}.{}", d.name,
                       d.compute_capability_major, d.compute_capability_minor, d.multiprocessors,
                       d.driver_version / 1000, d.driver_version % 1000 / 10,
                       d.runtime_version / 1000, d.runtime_version % 1000 / 10));
    }
    fact("date", context.date);
    fact("host", context.host_name);
    fact("kerntime", context.kerntime_version);
    out << "<dt>command</dt><dd><code>" << html_escape(context.command_line) << "</code></dd>\n";
    fact("states", fmt::format("{} ok, {} failed, {} skipped", counts[0], counts[1], counts[2]));
    out << "</dl>\n<nav><ul>\n";
    for (std::size_t g = 0; g < groups.size(); ++g) {
      out << fmt::format("<li><a href=\"#{}\">{}</a></li>\n", html_id("benchmark", g),
                         html_escape(groups[g].name));
    }
    out << "</ul></nav>\n</header>\n";
  }

  // One line for the whole report when states have no energy reading (most often: their trials
  // were shorter than NVML's counter step), instead of the same advice in every state.
  static void print_energy_hint(std::ostream& out, std::span<const benchmark_run> runs) {
    std::size_t measured = 0;
    std::size_t unavailable = 0;
    std::string example;
    for (const auto& run : runs) {
      if (!run.result) {
        continue;
      }
      ++measured;
      if (!run.result->energy.available && !run.result->energy.unavailable_reason.empty()) {
        ++unavailable;
        if (example.empty()) {
          example = run.state_name + ": " + run.result->energy.unavailable_reason;
        }
      }
    }
    if (unavailable == 0) {
      return;
    }
    out << fmt::format("<p class=\"energy-hint\">Energy: no reading for {} of {} measured "
                       "state{}; each state's reason is the tooltip of its energy cell. For "
                       "example, {}.</p>\n",
                       unavailable, measured, measured == 1 ? "" : "s", html_escape(example));
  }

  void print_benchmark(std::ostream& out, std::size_t index, const detail::benchmark_group& group,
                       std::span<const benchmark_run> runs) const {
    out << fmt::format("<section class=\"benchmark\" id=\"{}\">\n<h2 class=\"name\">{}</h2>\n",
                       html_id("benchmark", index), html_escape(group.name));
    detail::print_latency_table(out, group, runs, compared_, summary_);
    if (!summary_) {
      for (const auto i : group.runs) {
        print_state(out, i, runs[i]);
      }
    }
    out << "</section>\n";
  }

  void print_state(std::ostream& out, std::size_t index, const benchmark_run& run) const {
    out << fmt::format("<article class=\"state\" id=\"{}\">\n<h3 class=\"name\">{}</h3>\n",
                       html_id("state", index), html_escape(run.state_name));
    if (run.status == run_status::failed) {
      out << "<p class=\"failed\"><strong>failed</strong> ("
          << html_escape(detail::error_kind_text(run)) << "): " << html_escape(run.message)
          << "</p>\n</article>\n";
      return;
    }
    if (run.status == run_status::skipped || !run.result) {
      out << "<p class=\"skipped\">skipped: " << html_escape(run.message) << "</p>\n</article>\n";
      return;
    }
    const auto& r = *run.result;
    if (const auto* s = compared_.find(run.state_name)) {
      out << fmt::format("<p class=\"{}\">vs baseline: ratio {} ({}), {}</p>\n",
                         detail::verdict_class(*s), html_escape(detail::ratio_text(*s)),
                         html_escape(detail::change_text(s->ratio)), detail::verdict_word(*s));
    }
    detail::print_distribution(out, run.state_name, r, dots_);
    detail::print_kernels(out, run.state_name, r);
    detail::print_counters(out, r.counters);
    detail::print_telemetry(out, run.state_name, r);
    out << "<p>Stopping: " << html_escape(detail::describe_stopping(r)) << "</p>\n";
    if (!r.warnings.empty()) {
      out << "<ul class=\"warnings\">\n";
      for (const auto& w : r.warnings) {
        out << "<li>" << html_escape(w) << "</li>\n";
      }
      out << "</ul>\n";
    }
    out << "</article>\n";
  }
};

} // namespace

std::unique_ptr<report_writer> make_html_writer(const comparison* compared) {
  return std::make_unique<html_writer>(compared);
}

} // namespace kerntime
