#include "report/detail/html_comparison.hpp"

#include <fmt/format.h>

#include <vector>

#include "report/detail/html_cells.hpp"
#include "report/detail/html_text.hpp"
#include "report/detail/svg_chart.hpp"
#include "report/detail/text.hpp"
#include "report/detail/units.hpp"

namespace kerntime::detail {

compared_states::compared_states(const comparison* compared) : compared_(compared) {
  if (compared_ != nullptr) {
    for (const auto& s : compared_->states) {
      by_state_.emplace(s.state_name, &s);
    }
  }
}

const state_comparison* compared_states::find(std::string_view state) const {
  const auto it = by_state_.find(state);
  return it == by_state_.end() ? nullptr : it->second;
}

double compared_states::confidence() const {
  return compared_ != nullptr ? 1 - compared_->options.alpha : 0.95;
}

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

void print_comparison_section(std::ostream& out, const comparison& c, double confidence) {
  out << "<section id=\"comparison\" class=\"comparison\">\n<h2>Compared with the "
         "baseline</h2>\n";
  out << fmt::format("<p>Base: {}; new: {}. Ratio new / base of the median, with its {:g} % "
                     "interval; \"same\" when the interval lies within ±{:.1f} % (or the "
                     "state's wider band).</p>\n",
                     html_escape(c.base_device), html_escape(c.new_device), 100 * confidence,
                     100 * c.options.threshold);
  if (!c.states.empty()) {
    std::vector<detail::interval_row> rows;
    for (const auto& s : c.states) {
      rows.push_back({.label = detail::shorten_middle(s.state_name, 44),
                      .tooltip = ratio_tooltip(s, confidence),
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
          << cell(change_text(s.ratio), "num") << cell(verdict_word(s)) << cell(notes) << "</tr>\n";
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

} // namespace kerntime::detail
