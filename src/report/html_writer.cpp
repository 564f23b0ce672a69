// The HTML report: one self-contained page (inline CSS and SVG; no script, no font, nothing
// fetched when it is viewed). Per benchmark the latency table; per state the distribution of
// every iteration by trial, the per-kernel breakdown as bars, the clocks per trial with the
// throttled trials marked and, given a comparison, the ratio to the baseline with its interval.
// Kernel and state names are untrusted text: everything shown passes through html_escape, and a
// Content-Security-Policy forbids every script, so even a missed escape could run nothing.

#include <fmt/format.h>

#include <map>
#include <ostream>

#include "kerntime/comparison.hpp"
#include "kerntime/report.hpp"
#include "report/detail/benchmark_groups.hpp"
#include "report/detail/counters_text.hpp"
#include "report/detail/html_text.hpp"
#include "report/detail/roofline_text.hpp"
#include "report/detail/stopping_text.hpp"
#include "report/detail/svg_chart.hpp"
#include "report/detail/telemetry_summary.hpp"
#include "report/detail/text.hpp"
#include "report/detail/units.hpp"

namespace kerntime {
namespace {

using detail::html_escape;
using detail::html_id;

// Visible kernel labels are folded like markdown's (the full name is the tooltip).
constexpr std::size_t kernel_label_width = 48;

constexpr std::string_view style_sheet = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2430;background:#fff}
main{max-width:1320px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:32px 0 8px;border-bottom:2px solid #d6dbe3;padding-bottom:4px}
h3{font-size:15px;margin:20px 0 6px}h4{font-size:13px;margin:12px 0 4px;color:#47526a}
code,.name{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;overflow-wrap:anywhere;white-space:pre-wrap}
table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}
th,td{border:1px solid #d6dbe3;padding:3px 8px;text-align:left;vertical-align:top}
table.latency,table.comparison{display:block;overflow-x:auto;max-width:100%}td.name{min-width:10em}
table.latency{font-size:12px}table.latency th,table.latency td{padding:2px 5px}
th{background:#f2f4f8}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:8px 0}dl.facts dt{color:#5a6478}dl.facts dd{margin:0}
article.state{border:1px solid #e1e5ec;border-radius:6px;padding:4px 14px 10px;margin:14px 0}
figure{margin:6px 0 10px}figcaption{font-size:12px;color:#5a6478}
svg.chart{display:block;max-width:100%;height:auto;font-size:11px}
svg .grid{stroke:#e6e9ef}svg .tick,svg .axis-name,svg .legend{fill:#47526a}
svg .row-hit{fill:transparent}svg .row-label{fill:#1d2430}svg .row-label.flagged{fill:#b42318;font-weight:bold}
svg circle{fill:var(--c);fill-opacity:.75}svg .trial-median{stroke:#1d2430;stroke-width:2}
svg .median{stroke:#1d2430;stroke-dasharray:5 3;stroke-width:1.2}
svg.glyph{display:block;margin-top:2px}svg.glyph path{stroke:#2f5d9e;stroke-width:1.5;fill:none}
svg .spread{stroke:var(--c);stroke-width:2}svg .spread-box{fill:var(--c);fill-opacity:.45}
svg .bar,svg .swatch{fill:var(--c)}svg .bar-label{font-family:ui-monospace,Menlo,Consolas,monospace}
svg .line{stroke:var(--c);fill:none;stroke-width:1.5}svg .throttle{fill:#fde2e1}
svg .band{fill:#eef1f5}svg .reference{stroke:#1d2430;stroke-dasharray:4 3}
svg .interval{stroke:var(--c);stroke-width:3}svg .estimate{fill:var(--c);fill-opacity:1}
.series-0{--c:#0072b2}.series-1{--c:#e69f00}.series-2{--c:#009e73}.series-3{--c:#cc79a7}.series-4{--c:#56b4e9}
.series-5{--c:#d55e00}.series-6{--c:#7f7f7f}.series-7{--c:#b8a000}.series-8{--c:#332288}.series-9{--c:#117733}
.verdict-slower{--c:#b42318;color:#b42318;font-weight:bold}.verdict-faster{--c:#067647;color:#067647}
.verdict-same{--c:#5a6478}.verdict-inconclusive{--c:#b54708;color:#b54708}
.verdict-clock{--c:#7a5af8;color:#7a5af8}
.failed{color:#b42318}.skipped{color:#5a6478}.throttled{color:#b42318}
ul.warnings{margin:4px 0;padding-left:20px;color:#8a4b08}
nav ul{columns:3;margin:4px 0;padding-left:20px}
)";

std::string cell(std::string_view text, std::string_view css = "") {
  return css.empty() ? fmt::format("<td>{}</td>", html_escape(text))
                     : fmt::format("<td class=\"{}\">{}</td>", css, html_escape(text));
}

std::string number_cell(const std::optional<double>& value, std::string_view format) {
  return value ? fmt::format("<td class=\"num\">{}</td>", fmt::format(fmt::runtime(format), *value))
               : std::string("<td class=\"num\">\xE2\x80\x93</td>");
}

// The verdict as a word and as the colour class of its row, bar and text; a verdict the clocks
// may explain reads "slower (clock)" (kerntime::verdict_text's spelling) in its own colour.
std::string verdict_word(const state_comparison& s) {
  std::string word;
  switch (s.outcome) {
  case verdict::slower:
    word = "slower";
    break;
  case verdict::faster:
    word = "faster";
    break;
  case verdict::same:
    word = "same";
    break;
  case verdict::inconclusive:
    word = "inconclusive";
    break;
  }
  return s.clock_mismatch ? word + " (clock)" : word;
}

std::string verdict_class(const state_comparison& s) {
  return s.clock_mismatch ? "verdict-clock" : "verdict-" + verdict_word(s);
}

std::string change_text(double ratio) {
  return fmt::format("{:+.2f} %", 100 * (ratio - 1));
}

// The share of the peak for the bound the roofline names ("73.2 % compute"), with every figure
// behind it as the tooltip.
std::string speed_of_light_cell(const speed_of_light& sol, const std::optional<double>& compute_pct,
                                const std::optional<double>& memory_pct, std::string_view peaks) {
  const auto share = detail::bound_share_text(sol.bound, compute_pct, memory_pct);
  if (share.empty()) {
    return "<td class=\"num\">\xE2\x80\x93</td>";
  }
  std::string tooltip = fmt::format("{} bound; roofline time {}", to_string(sol.bound),
                                    detail::human_duration(sol.roofline_ns));
  if (compute_pct) {
    tooltip += fmt::format("; compute {:.1f} %", *compute_pct);
  }
  if (memory_pct) {
    tooltip += fmt::format("; DRAM bandwidth {:.1f} %", *memory_pct);
  }
  tooltip += fmt::format(" of the {}", peaks);
  for (const auto& note : sol.notes) {
    tooltip += "; " + note;
  }
  // A share that cannot be a plain fact is marked in the cell, its reason in the tooltip.
  return fmt::format("<td class=\"num\"><span title=\"{}\">{}{}</span></td>", html_escape(tooltip),
                     html_escape(share), sol.notes.empty() ? "" : " *");
}

std::string theoretical_peaks(const speed_of_light& sol) {
  std::string text = "peaks";
  if (sol.precision) {
    text += fmt::format(" ({})", to_string(*sol.precision));
  }
  if (sol.peak_flops_per_s) {
    text += fmt::format(": {:.1f} TFLOP/s", *sol.peak_flops_per_s / 1e12);
  }
  if (sol.peak_bytes_per_s) {
    text += fmt::format(", {:.0f} GB/s", *sol.peak_bytes_per_s / 1e9);
  }
  return text + "; " + sol.peak_source;
}

std::string achievable_peaks(const achievable_speed_of_light& a) {
  std::string text = "achievable peaks (kerntime calibrate)";
  if (a.flops_per_s) {
    text += fmt::format(": {:.1f} TFLOP/s", *a.flops_per_s / 1e12);
  }
  if (a.bytes_per_s) {
    text += fmt::format(", {:.0f} GB/s", *a.bytes_per_s / 1e9);
  }
  return text + "; " + a.source;
}

std::string ratio_text(const state_comparison& s) {
  return fmt::format("{:.4f} [{:.4f}, {:.4f}]", s.ratio, s.ratio_low, s.ratio_high);
}

std::string ratio_tooltip(const state_comparison& s, double confidence) {
  std::string text = fmt::format(
      "{}: {} → {}, ratio {:.4f} ({}), {:g} % interval {:.4f} … {:.4f} over {} {} / {} {}, band "
      "±{:.1f} % ({}): {}",
      s.state_name, detail::human_duration(s.base_ns), detail::human_duration(s.new_ns), s.ratio,
      change_text(s.ratio), 100 * confidence, s.ratio_low, s.ratio_high, s.base_units, s.unit,
      s.new_units, s.unit, 100 * s.band, s.band_reason, verdict_word(s));
  for (const auto& note : s.notes) {
    text += "; " + note;
  }
  return text;
}

class html_writer final : public report_writer {
public:
  explicit html_writer(const comparison* compared) : compared_(compared) {
    if (compared_ != nullptr) {
      for (const auto& s : compared_->states) {
        by_state_.emplace(s.state_name, &s);
      }
    }
  }

private:
  // A dot per sample while the page holds at most this many (a 26-state suite run holds 6,500);
  // beyond, each trial is drawn as its spread: 650,000 dots made a 52 MB page at 2,600 states.
  static constexpr std::size_t most_dots = 50'000;
  // Each state's charts (distribution, kernels, counters, telemetry: about 11 KB) while the page
  // holds at most this many measured states; beyond, a state is a row of its benchmark's table
  // with its trials drawn small: 2,600 states made a 30 MB page.
  static constexpr std::size_t most_states_drawn = 200;

  const comparison* compared_;
  bool dots_ = true;
  bool summary_ = false;
  std::map<std::string, const state_comparison*, std::less<>> by_state_;

  [[nodiscard]] const state_comparison* compared_state(std::string_view name) const {
    const auto it = by_state_.find(name);
    return it == by_state_.end() ? nullptr : it->second;
  }

  [[nodiscard]] double confidence() const {
    return compared_ != nullptr ? 1 - compared_->options.alpha : 0.95;
  }

  void do_print(std::ostream& out, const run_context& context,
                std::span<const benchmark_run> runs) override {
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
           "style-src 'unsafe-inline'\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
           "<meta name=\"generator\" content=\"kerntime "
        << html_escape(context.kerntime_version) << "\">\n<title>kerntime report</title>\n<style>"
        << style_sheet << "</style>\n</head>\n<body>\n<main>\n";
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
    if (compared_ != nullptr) {
      print_comparison(out);
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

  void print_comparison(std::ostream& out) const {
    const auto& c = *compared_;
    out << "<section id=\"comparison\" class=\"comparison\">\n<h2>Compared with the "
           "baseline</h2>\n";
    out << fmt::format("<p>Base: {}; new: {}. Ratio new / base of the median, with its {:g} % "
                       "interval; \"same\" when the interval lies within ±{:.1f} % (or the "
                       "state's wider band).</p>\n",
                       html_escape(c.base_device), html_escape(c.new_device), 100 * confidence(),
                       100 * c.options.threshold);
    if (!c.states.empty()) {
      std::vector<detail::interval_row> rows;
      for (const auto& s : c.states) {
        rows.push_back({.label = detail::shorten_middle(s.state_name, 44),
                        .tooltip = ratio_tooltip(s, confidence()),
                        .low = s.ratio_low,
                        .point = s.ratio,
                        .high = s.ratio_high,
                        .css_class = verdict_class(s),
                        .band_low = 1 / (1 + s.band),
                        .band_high = 1 + s.band});
      }
      out << "<figure>\n"
          << detail::interval_chart(rows, 1, "ratio new / base per state, with its interval")
          << "<figcaption>Dot: the ratio of the medians; bar: its interval; shaded: each "
             "state's own \"same\" band (±"
          << fmt::format("{:.1f}", 100 * c.options.threshold)
          << " %, or wider where the state needs it).</figcaption>\n</figure>\n";
      out << "<table class=\"comparison\">\n<tr><th>state</th><th>base</th><th>new</th>"
             "<th>ratio [interval]</th><th>change</th><th>verdict</th><th>notes</th></tr>\n";
      for (const auto& s : c.states) {
        std::string notes;
        for (const auto& n : s.notes) {
          notes += (notes.empty() ? "" : "; ") + n;
        }
        out << "<tr class=\"" << verdict_class(s) << "\">" << cell(s.state_name, "name")
            << cell(detail::human_duration(s.base_ns), "num")
            << cell(detail::human_duration(s.new_ns), "num") << cell(ratio_text(s), "num")
            << cell(change_text(s.ratio), "num") << cell(verdict_word(s)) << cell(notes)
            << "</tr>\n";
      }
      out << "</table>\n";
    }
    const auto list = [&out](std::string_view heading, const std::vector<std::string>& names) {
      if (names.empty()) {
        return;
      }
      out << "<h4>" << heading << "</h4>\n<ul>\n";
      for (const auto& n : names) {
        out << "<li class=\"name\">" << html_escape(n) << "</li>\n";
      }
      out << "</ul>\n";
    };
    list("Only in the base", c.only_in_base);
    list("Only in the new run", c.only_in_new);
    list("Not compared", c.not_compared);
    out << "</section>\n";
  }

  void print_benchmark(std::ostream& out, std::size_t index, const detail::benchmark_group& group,
                       std::span<const benchmark_run> runs) const {
    out << fmt::format("<section class=\"benchmark\" id=\"{}\">\n<h2 class=\"name\">{}</h2>\n",
                       html_id("benchmark", index), html_escape(group.name));
    print_latency_table(out, group, runs);
    if (!summary_) {
      for (const auto i : group.runs) {
        print_state(out, i, runs[i]);
      }
    }
    out << "</section>\n";
  }

  void print_latency_table(std::ostream& out, const detail::benchmark_group& group,
                           std::span<const benchmark_run> runs) const {
    const auto& axes = group.axes;
    const detail::optional_columns columns = detail::columns_of(group, runs);
    const bool throughput = columns.flops || columns.bytes;
    out << "<table class=\"latency\">\n<tr><th>state</th>";
    for (const auto& a : axes) {
      out << "<th>" << html_escape(a) << "</th>";
    }
    out << "<th>latency (median)</th><th>stdev</th><th>CV</th><th>p10</th><th>p90</th>"
           "<th>samples</th>";
    if (throughput) {
      out << "<th>TFLOP/s</th><th>GB/s</th>";
    }
    if (columns.sol) {
      out << "<th>SOL</th>";
    }
    if (columns.achievable) {
      out << "<th>of achievable</th>";
    }
    if (columns.energy) {
      out << "<th>energy/iter</th><th>power</th>";
    }
    if (columns.launch) {
      out << "<th>launch</th>";
    }
    out << "<th>backend</th>";
    if (compared_ != nullptr) {
      out << "<th>new / base</th>";
    }
    out << "</tr>\n";
    for (const auto i : group.runs) {
      const auto& run = runs[i];
      if (summary_) { // the state's trials drawn small beside its name: no wider a table
        out << "<tr><td class=\"name\">" << html_escape(run.state_name)
            << (run.result ? " " + trial_glyph(run.state_name, *run.result) : std::string())
            << "</td>";
      } else {
        out << fmt::format("<tr><td class=\"name\"><a href=\"#{}\">{}</a></td>",
                           html_id("state", i), html_escape(run.state_name));
      }
      for (const auto& a : axes) {
        const auto it = std::find_if(run.axes.begin(), run.axes.end(),
                                     [&](const auto& axis) { return axis.first == a; });
        out << cell(it == run.axes.end() ? std::string() : it->second);
      }
      if (run.status != run_status::ok || !run.result) {
        const int span = 6 + (throughput ? 2 : 0) + (columns.sol ? 1 : 0) +
                         (columns.achievable ? 1 : 0) + (columns.energy ? 2 : 0) +
                         (columns.launch ? 1 : 0) + 1 + (compared_ != nullptr ? 1 : 0);
        const bool failed = run.status == run_status::failed;
        out << fmt::format(
            "<td colspan=\"{}\" class=\"{}\">{}</td></tr>\n", span, failed ? "failed" : "skipped",
            html_escape(failed ? "failed (" + detail::error_kind_text(run) + "): " + run.message
                               : "skipped: " + run.message));
        continue;
      }
      const auto& r = *run.result;
      out << cell(detail::human_duration(r.latency_ns), "num")
          << cell(detail::human_duration(r.stats.stdev), "num")
          << cell(detail::percent(r.stats.cv), "num")
          << cell(detail::human_duration(r.stats.p10), "num")
          << cell(detail::human_duration(r.stats.p90), "num")
          << cell(std::to_string(r.stats.count), "num");
      if (throughput) {
        out << number_cell(detail::tflop_per_second(run), "{:.2f}")
            << number_cell(detail::gigabytes_per_second(run), "{:.1f}");
      }
      const std::string none = "<td class=\"num\">\xE2\x80\x93</td>";
      if (columns.sol) {
        out << (run.sol ? speed_of_light_cell(*run.sol, run.sol->compute_pct, run.sol->memory_pct,
                                              theoretical_peaks(*run.sol))
                        : none);
      }
      if (columns.achievable) {
        const auto* a = run.sol && run.sol->achievable ? &*run.sol->achievable : nullptr;
        out << (a ? speed_of_light_cell(*run.sol, a->compute_pct, a->memory_pct,
                                        achievable_peaks(*a))
                  : none);
      }
      if (columns.energy) {
        if (r.energy.available) {
          out << (r.energy.joules_per_iteration
                      ? cell(detail::energy_text(*r.energy.joules_per_iteration), "num")
                      : none)
              << number_cell(r.energy.average_watts, "{:.1f} W");
        } else {
          out << fmt::format("<td class=\"num\" colspan=\"2\"><span title=\"{}\">"
                             "\xE2\x80\x93</span></td>",
                             html_escape("energy unavailable: " + r.energy.unavailable_reason));
        }
      }
      if (columns.launch) {
        out << cell(to_string(r.protocol_used.launch));
      }
      out << cell(to_string(r.backend));
      if (compared_ != nullptr) {
        if (const auto* s = compared_state(run.state_name)) {
          out << fmt::format("<td class=\"num {}\"><span title=\"{}\">{}</span></td>",
                             verdict_class(*s), html_escape(ratio_tooltip(*s, confidence())),
                             html_escape(fmt::format("{:.3f} ({})", s->ratio, verdict_word(*s))));
        } else {
          out << cell("not compared");
        }
      }
      out << "</tr>\n";
    }
    out << "</table>\n";
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
    if (const auto* s = compared_state(run.state_name)) {
      out << fmt::format("<p class=\"{}\">vs baseline: ratio {} ({}), {}</p>\n", verdict_class(*s),
                         html_escape(ratio_text(*s)), html_escape(change_text(s->ratio)),
                         verdict_word(*s));
    }
    print_distribution(out, run.state_name, r, dots_);
    print_kernels(out, run.state_name, r);
    print_counters(out, r.counters);
    print_telemetry(out, run.state_name, r);
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

  // The state's trials drawn small (svg_chart.hpp's trial_glyph), the medians' range its tooltip.
  static std::string trial_glyph(std::string_view state, const measurement_result& r) {
    const auto rows = trial_rows(r);
    if (rows.empty()) {
      return {};
    }
    const auto [fastest, slowest] =
        std::minmax_element(rows.begin(), rows.end(),
                            [](const auto& a, const auto& b) { return a.median_ns < b.median_ns; });
    return detail::trial_glyph(rows,
                               fmt::format("{}: {} trials, medians {} to {}", state, rows.size(),
                                           detail::human_duration(fastest->median_ns),
                                           detail::human_duration(slowest->median_ns)));
  }

  // A row per trial: its samples of the headline metric, its median, whether it was throttled.
  static std::vector<detail::strip_row> trial_rows(const measurement_result& r) {
    const bool busy = r.protocol_used.metric == headline_metric::busy;
    std::vector<detail::strip_row> rows;
    for (std::size_t t = 0; t < r.trials.size(); ++t) {
      const auto& trial = r.trials[t];
      detail::strip_row row;
      row.label = fmt::format("trial {}", t + 1);
      for (const auto& s : trial.iterations) {
        row.values_ns.push_back(busy ? s.busy_ns : s.span_ns);
      }
      const bool has_summary = t < r.trials_summary.medians.size();
      row.median_ns = has_summary ? r.trials_summary.medians[t] : r.latency_ns;
      row.flagged = trial.telemetry.throttled;
      row.tooltip = fmt::format("trial {}: {} iterations, median {}", t + 1, row.values_ns.size(),
                                detail::human_duration(row.median_ns));
      if (t < r.trials_summary.means.size()) {
        row.tooltip += ", mean " + detail::human_duration(r.trials_summary.means[t]);
      }
      if (trial.telemetry.throttled) {
        row.tooltip += "; throttled: " + trial.telemetry.throttle_reason;
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

  static void print_distribution(std::ostream& out, std::string_view state,
                                 const measurement_result& r, bool dots) {
    const auto rows = trial_rows(r);
    std::size_t iterations = 0;
    for (const auto& row : rows) {
      iterations += row.values_ns.size();
    }
    out << "<figure class=\"distribution\">\n<h4>Distribution</h4>\n"
        << detail::strip_plot(
               rows, r.latency_ns,
               fmt::format("{}: {} per iteration", state, to_string(r.protocol_used.metric)), dots)
        << fmt::format("<figcaption>{} iterations in {} trials ({} per iteration); {}; tick: the "
                       "trial's median; dashed: the median of every iteration, {}.</figcaption>"
                       "\n</figure>\n",
                       iterations, r.trials.size(), to_string(r.protocol_used.metric),
                       dots ? "a dot per iteration, coloured by trial"
                            : "per trial a line from p10 to p90 and a box from p25 to p75 (the "
                              "report holds too many samples to draw each)",
                       html_escape(detail::human_duration(r.latency_ns)));
  }

  static void print_kernels(std::ostream& out, std::string_view state,
                            const measurement_result& r) {
    out << "<figure class=\"kernels\">\n<h4>Kernels</h4>\n";
    if (r.kernels.empty()) {
      out << "<p>No per-kernel breakdown: timed with " << html_escape(to_string(r.backend))
          << (r.backend_reason.empty() ? "" : " (" + html_escape(r.backend_reason) + ")")
          << ".</p>\n</figure>\n";
      return;
    }
    std::vector<detail::bar> bars;
    for (const auto& k : r.kernels) {
      bars.push_back(
          {detail::shorten_kernel_name(k.name, kernel_label_width),
           fmt::format("{} ({}), {:g} calls per iteration: mean {}, median {}, {} of "
                       "the busy time",
                       detail::valid_utf8(k.name), to_string(k.kind), k.calls_per_iteration,
                       detail::human_duration(k.mean_ns), detail::human_duration(k.median_ns),
                       detail::percent(k.share)),
           k.mean_ns,
           fmt::format("{} · {}", detail::human_duration(k.mean_ns), detail::percent(k.share))});
    }
    out << detail::bar_chart(bars, fmt::format("{}: mean GPU time per iteration by kernel", state))
        << "<figcaption>Mean time per iteration (all calls summed) and share of the busy "
           "time.</figcaption>\n";
    out << "<table class=\"kernels\">\n<tr><th>kernel</th><th>kind</th><th>calls/iter</th>"
           "<th>mean</th><th>median</th><th>share</th></tr>\n";
    for (const auto& k : r.kernels) {
      out << "<tr>" << cell(k.name, "name") << cell(to_string(k.kind))
          << cell(fmt::format("{:g}", k.calls_per_iteration), "num")
          << cell(detail::human_duration(k.mean_ns), "num")
          << cell(detail::human_duration(k.median_ns), "num")
          << cell(detail::percent(k.share), "num") << "</tr>\n";
    }
    out << "</table>\n</figure>\n";
  }

  // Each kernel's counters (the columns some kernel has; every metric on hover of its name), the
  // iteration's line and any mismatch; or why the counters are unavailable. Nothing when they
  // were not requested.
  static void print_counters(std::ostream& out, const counters_summary& c) {
    if (c.status == counters_status::not_requested) {
      return;
    }
    out << "<figure class=\"counters\">\n<h4>Counters</h4>\n";
    if (c.status == counters_status::unavailable) {
      out << "<p>Counters unavailable: " << html_escape(c.reason) << "</p>\n</figure>\n";
      return;
    }
    const detail::kernel_counter_columns columns = detail::kernel_counter_columns_of(c);
    out << "<table class=\"counters\">\n<tr><th>kernel</th><th>launches</th>";
    for (const auto& [shown, name] :
         {std::pair{columns.dram_bytes, "DRAM bytes"}, std::pair{columns.dram_percent, "DRAM %"},
          std::pair{columns.l2_hit_rate, "L2 hit %"}, std::pair{columns.tensor, "tensor %"},
          std::pair{columns.bound, "bound"}}) {
      if (shown) {
        out << "<th>" << name << "</th>";
      }
    }
    out << "</tr>\n";
    for (const auto& k : c.kernels) {
      std::string metrics;
      for (const auto& [metric, value] : k.metrics) {
        metrics += fmt::format("{}{} = {}", metrics.empty() ? "" : "; ", metric, value);
      }
      out << fmt::format("<tr><td class=\"name\" title=\"{}\">{}</td>", html_escape(metrics),
                         html_escape(k.name))
          << cell(std::to_string(k.launches), "num");
      if (columns.dram_bytes) {
        out << (k.derived.dram_bytes ? cell(detail::bytes_text(*k.derived.dram_bytes), "num")
                                     : number_cell(std::nullopt, ""));
      }
      if (columns.dram_percent) {
        out << number_cell(k.derived.dram_percent_of_peak, "{:.1f}");
      }
      // A value outside its range is marked as the artefact it is, with why as its tooltip.
      const auto metric_cell = [&k](std::string_view metric) {
        const auto value = detail::metric_value(k, metric);
        const std::string* why = detail::implausible_reason(k.derived, metric);
        if (!value || why == nullptr) {
          return number_cell(value, "{:.1f}");
        }
        return fmt::format("<td class=\"num\"><span title=\"{}\">{:.1f} (artefact)</span></td>",
                           html_escape(*why), *value);
      };
      if (columns.l2_hit_rate) {
        out << metric_cell(detail::l2_hit_rate_metric);
      }
      if (columns.tensor) {
        out << metric_cell(detail::tensor_pipe_metric);
      }
      if (columns.bound) {
        out << cell(k.derived.bound ? to_string(*k.derived.bound) : "\xE2\x80\x93");
      }
      out << "</tr>\n";
    }
    out << "</table>\n";
    if (!c.mismatches.empty()) {
      out << "<ul class=\"warnings\">\n";
      for (const auto& m : c.mismatches) {
        out << "<li>" << html_escape(m) << "</li>\n";
      }
      out << "</ul>\n";
    }
    out << "<figcaption>" << html_escape(detail::describe_counters(c))
        << "; every metric of a kernel on hover of its name.</figcaption>\n</figure>\n";
  }

  static void print_telemetry(std::ostream& out, std::string_view state,
                              const measurement_result& r) {
    const auto summary = detail::summarize_telemetry(r);
    out << "<figure class=\"telemetry\">\n<h4>Telemetry</h4>\n";
    if (summary.has_readings) {
      std::vector<detail::trial_series> series(3);
      series[0].name = "SM clock before (NVML)";
      series[1].name = "SM clock after (NVML)";
      series[2].name = "measured on the GPU";
      std::vector<detail::trial_mark> marks;
      for (std::size_t t = 0; t < r.trials.size(); ++t) {
        const auto& tel = r.trials[t].telemetry;
        const auto sm = [](const std::optional<gpu_snapshot>& s) -> std::optional<double> {
          if (s && s->sm_clock_mhz) {
            return static_cast<double>(*s->sm_clock_mhz);
          }
          return std::nullopt;
        };
        series[0].values.push_back(sm(tel.before));
        series[1].values.push_back(sm(tel.after));
        series[2].values.push_back(tel.measured_sm_clock_mhz);
        if (tel.throttled) {
          marks.push_back({t, fmt::format("trial {} throttled: {}", t + 1, tel.throttle_reason)});
        }
      }
      std::erase_if(series, [](const detail::trial_series& s) {
        return std::none_of(s.values.begin(), s.values.end(),
                            [](const auto& v) { return v.has_value(); });
      });
      if (!series.empty()) {
        out << detail::trial_chart(series, r.trials.size(), marks, "MHz",
                                   fmt::format("{}: SM clock per trial", state));
        out << "<figcaption>SM clock per trial; shaded: a throttled trial.</figcaption>\n";
      }
    }
    if (r.energy.available && r.energy.joules_per_iteration) {
      out << "<p>Energy: " << html_escape(detail::energy_text(*r.energy.joules_per_iteration))
          << " per iteration"
          << (r.energy.average_watts
                  ? html_escape(fmt::format(", {:.1f} W on average", *r.energy.average_watts))
                  : std::string())
          << html_escape(detail::energy_window_text(r.energy)) << ".</p>\n";
    }
    const std::string line = detail::describe(summary);
    if (!line.empty()) {
      out << "<p" << (summary.throttling.throttled_trials > 0 ? " class=\"throttled\"" : "") << ">"
          << html_escape(line) << "</p>\n";
    }
    if (const auto events = detail::describe_clock_events(summary.throttling); !events.empty()) {
      out << "<p>Clock events: " << html_escape(events) << "</p>\n";
    }
    out << "</figure>\n";
  }
};

} // namespace

std::unique_ptr<report_writer> make_html_writer(const comparison* compared) {
  return std::make_unique<html_writer>(compared);
}

} // namespace kerntime
